//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The calls syscalls/syscalls.c times, in the order it prints them.
var syscallKinds = []string{"openat+close", "fcntl", "ioctl", "getpid"}

// TestSyscallCost prints the per-call cost of system calls a build makes
// by the million (syscalls/syscalls.c: openat+close, fcntl, ioctl, getpid)
// inside acbox, against the same static program bare and under bubblewrap
// (no seccomp filter, no Landlock), and against the previous release when
// ACBOX_PREV_BIN is set (the filter is embedded, so an A/B of two filters is
// two binaries). The member's seccomp filter runs on every call with
// argument rules (openat, fcntl, ioctl); getpid is allowed outright and
// skips it through the kernel's action cache. openat also pays Landlock's
// path walk. The program times its loops in thread CPU time, so other
// processes on a shared machine weigh less than on a wall clock. Rounds
// are interleaved.
func TestSyscallCost(t *testing.T) {
	bin := acboxBin(t)
	dir, prog := buildSyscalls(t)
	const n, rounds = 200000, 21
	argv := []string{prog, prog, strconv.Itoa(n)}
	cs := []contender{{"bare", argv}}
	if _, err := exec.LookPath("bwrap"); err == nil {
		cs = append(cs, contender{"bwrap", bwrapWith(dir, argv)})
	}
	acbox := func(b string) []string { return append([]string{b, "run", "--read", dir, "--"}, argv...) }
	if prev := os.Getenv("ACBOX_PREV_BIN"); prev != "" {
		cs = append(cs, contender{"previous", acbox(prev)})
	}
	cs = append(cs, contender{"acbox", acbox(bin)})
	if u := unprivileged(); u != "" {
		cs = append(cs, contender{"acbox as " + u, append(asUser(u), acbox(bin)...)})
	}
	ns := map[string]map[string][]float64{}
	for range rounds {
		for _, c := range cs {
			for k, v := range syscallRun(t, c) {
				if ns[c.name] == nil {
					ns[c.name] = map[string][]float64{}
				}
				ns[c.name][k] = append(ns[c.name][k], v)
			}
		}
	}
	printSyscallCost(cs, ns, n, rounds)
}

// printSyscallCost prints, per kind of call, each contender's ns per call
// and acbox's ratio to each baseline, round by round ("median [middle
// half; range]").
func printSyscallCost(cs []contender, ns map[string]map[string][]float64, n, rounds int) {
	fmt.Printf("ns (thread CPU) per call, %d calls per kind, %d rounds, interleaved; load %s; %s\n", n, rounds, loadavg(), machine())
	div := func(a, b float64) float64 { return a / b }
	for _, k := range syscallKinds {
		fmt.Printf("  %s\n", k)
		for _, c := range cs {
			fmt.Printf("    %-22s %s\n", c.name, spread(ns[c.name][k], "%.0f"))
		}
		for _, base := range []string{"bare", "bwrap", "previous"} {
			if b, ok := ns[base]; ok {
				fmt.Printf("    %-22s %s\n", "ratio acbox/"+base, spread(perRound(ns["acbox"][k], b[k], div), "%.2f"))
			}
		}
	}
}

// buildSyscalls compiles syscalls/syscalls.c statically into a directory
// the test user can read, which the sandboxes are granted.
func buildSyscalls(t *testing.T) (dir, prog string) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc on PATH")
	}
	dir, err := os.MkdirTemp("", "acbox-bench-syscalls-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog = filepath.Join(dir, "syscalls")
	if out, err := exec.Command("gcc", "-O2", "-static", "-o", prog, "syscalls/syscalls.c").CombinedOutput(); err != nil {
		t.Skipf("gcc -static syscalls.c (libc6-dev's static libc is needed): %v\n%s", err, out)
	}
	return dir, prog
}

// bwrapWith is bwrapComparable running argv, with dir bound read-only.
func bwrapWith(dir string, argv []string) []string {
	a := bwrapComparable()
	a = a[:len(a)-2] // "--", "true"
	return append(append(a, "--ro-bind", dir, dir, "--"), argv...)
}

// syscallRun runs c once and returns its ns per call by kind.
func syscallRun(t *testing.T, c contender) map[string]float64 {
	var out, errb bytes.Buffer
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", c.name, err, errb.String())
	}
	got := map[string]float64{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			got[f[0]] = v
		}
	}
	for _, k := range syscallKinds {
		if _, ok := got[k]; !ok {
			t.Fatalf("%s printed no %s line:\n%s", c.name, k, out.String())
		}
	}
	return got
}
