//go:build bench

package bench

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestCPU prints the CPU time (user + sys) of a launch's whole process tree,
// acbox against the comparable bubblewrap, as root and as the test user.
// The rusage of a waited child includes every descendant it waited for
// (acbox's pid 1 and the member; bubblewrap's monitor and the command).
// Target: acbox/bubblewrap <= 3.0.
func TestCPU(t *testing.T) {
	bin := acboxBin(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed")
	}
	cs := []contender{{"acbox", []string{bin, "run", "--", "true"}}, {"bwrap", bwrapComparable()}}
	if u := unprivileged(); u != "" {
		cs = append(cs, contender{"acbox as " + u, append(asUser(u), bin, "run", "--", "true")},
			contender{"bwrap as " + u, append(asUser(u), bwrapComparable()...)})
	}
	const n = 100
	cpu := map[string][]time.Duration{}
	for i := 0; i < n; i++ {
		for _, c := range cs {
			d, err := cpuRun(c.argv)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			cpu[c.name] = append(cpu[c.name], d)
		}
	}
	fmt.Printf("CPU time (user+sys) of the whole process tree, median of %d, interleaved; %s\n", n, machine())
	for _, c := range cs {
		fmt.Printf("  %-22s %7.2f ms\n", c.name, ms3(median(cpu[c.name])))
	}
	fmt.Printf("  ratio acbox/bwrap CPU: %.2f (target <= 3.0)\n", float64(median(cpu["acbox"]))/float64(median(cpu["bwrap"])))
	if u := unprivileged(); u != "" {
		fmt.Printf("  ratio acbox/bwrap CPU as %s: %.2f\n", u, float64(median(cpu["acbox as "+u]))/float64(median(cpu["bwrap as "+u])))
	}
}

func asUser(u string) []string {
	return []string{"setpriv", "--reuid=" + u, "--regid=" + u, "--clear-groups", "--reset-env"}
}

// cpuRun runs argv and returns the user + sys time of its whole tree.
func cpuRun(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
