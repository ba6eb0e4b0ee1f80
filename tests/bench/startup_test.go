//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

const runs = 200

// contender is one command line timed from fork to exit.
type contender struct {
	name string
	argv []string
}

func acboxBin(t *testing.T) string {
	b := os.Getenv("ACBOX_BIN")
	if b == "" {
		t.Skip("ACBOX_BIN is not set; run `make bench`")
	}
	return b
}

// bwrapComparable is a bubblewrap launch with a setup like acbox's: all
// namespaces, read-only system directories, proc, dev, tmpfs /tmp and home,
// new session.
func bwrapComparable() []string {
	home, _ := os.UserHomeDir()
	a := []string{"bwrap", "--unshare-all", "--die-with-parent", "--new-session",
		"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"}
	for _, l := range []string{"/bin", "/lib", "/lib64", "/sbin"} {
		if t, err := os.Readlink(l); err == nil {
			a = append(a, "--symlink", t, l)
		}
	}
	return append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", home, "--", "true")
}

func TestStartup(t *testing.T) {
	bin := acboxBin(t)
	cs := []contender{{"bare true", []string{"true"}}, {"acbox run -- true", []string{bin, "run", "--", "true"}}}
	if _, err := exec.LookPath("bwrap"); err == nil {
		cs = append(cs, contender{"bwrap (comparable)", bwrapComparable()})
	}
	if u := unprivileged(); u != "" {
		cs = append(cs, contender{"acbox as " + u, []string{"setpriv", "--reuid=" + u, "--regid=" + u, "--clear-groups", "--reset-env", bin, "run", "--", "true"}},
			contender{"bwrap as " + u, append([]string{"setpriv", "--reuid=" + u, "--regid=" + u, "--clear-groups", "--reset-env"}, bwrapComparable()...)})
	}
	med := map[string]time.Duration{}
	samples := map[string][]time.Duration{}
	for i := 0; i < runs; i++ { // interleaved, so load drift hits all alike
		for _, c := range cs {
			d, err := timeRun(c.argv)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			samples[c.name] = append(samples[c.name], d)
		}
	}
	fmt.Printf("startup, %d runs each, interleaved; %s\n", runs, machine())
	for _, c := range cs {
		med[c.name] = median(samples[c.name])
		fmt.Printf("  %-22s median %7.2f ms  p90 %7.2f ms\n", c.name, ms(med[c.name]), ms(pct(samples[c.name], 90)))
	}
	if b, ok := med["bwrap (comparable)"]; ok {
		fmt.Printf("  ratio acbox/bwrap: %.2f (target <= 1.5)\n", float64(med["acbox run -- true"])/float64(b))
	}
	if u := unprivileged(); u != "" {
		fmt.Printf("  ratio acbox/bwrap as %s: %.2f\n", u, float64(med["acbox as "+u])/float64(med["bwrap as "+u]))
	}
	fmt.Printf("  ratio acbox/bare: %.1f\n", float64(med["acbox run -- true"])/float64(med["bare true"]))
	phases(t, bin)
}

// unprivileged names the test user when the bench runs as root, so that
// the rootless figure (the product) is measured too; "" otherwise.
func unprivileged() string {
	if os.Getuid() != 0 {
		return ""
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		return ""
	}
	if err := exec.Command("id", "acbox-test").Run(); err != nil {
		return ""
	}
	return "acbox-test"
}

func timeRun(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	err := cmd.Run()
	return time.Since(start), err
}

func median(s []time.Duration) time.Duration { return pct(s, 50) }

func pct(s []time.Duration, p int) time.Duration {
	c := append([]time.Duration{}, s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c[(len(c)-1)*p/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func machine() string {
	k, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("kernel %s, %d CPUs, %s", strings.TrimSpace(string(k)), runtime.NumCPU(), runtime.Version())
}
