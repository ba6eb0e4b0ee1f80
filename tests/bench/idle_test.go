//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleMemory prints the host memory each live idle sandbox costs, with
// 10 sandboxes of each kind alive at once: the proportional set size (Pss)
// plus the page tables (VmPTE) of the sandbox's own processes (acbox's
// parent and pid 1; bubblewrap's two), the member (`sleep`) left out. The
// change in the host's used memory would also count the kernel's side
// (namespaces, mounts) but on a shared machine it moves by tens of MiB with
// whatever else runs, so it is not printed. Target: <= 2 MiB per sandbox.
func TestIdleMemory(t *testing.T) {
	bin := acboxBin(t)
	fmt.Printf("host memory per live idle sandbox, 10 alive at once; %s\n", machine())
	kinds := []contender{{"acbox", []string{bin, "run", "--", "sleep", "30"}}}
	if _, err := exec.LookPath("bwrap"); err == nil {
		b := bwrapComparable()
		kinds = append(kinds, contender{"bwrap", append(b[:len(b)-1], "sleep", "30")})
	}
	for _, k := range kinds {
		fmt.Printf("  %-6s Pss + page tables of its own processes: %6.2f MiB per sandbox\n", k.name, idle(t, k.argv, 10))
	}
}

// idle starts n sandboxes of argv, waits until they sleep, and returns the
// Pss and page tables of each one's processes other than the sleeping
// member, per sandbox, in MiB.
func idle(t *testing.T, argv []string, n int) float64 {
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		time.Sleep(300 * time.Millisecond) // let the kernel tear the namespaces down
	}()
	for i := 0; i < n; i++ {
		c := exec.Command(argv[0], argv[1:]...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	time.Sleep(1500 * time.Millisecond)
	var kib int
	for _, c := range cmds {
		for _, p := range tree(c.Process.Pid) {
			if comm(p) != "sleep" {
				kib += pssKiB(p) + statusKiB(p, "VmPTE")
			}
		}
	}
	return float64(kib) / 1024 / float64(n)
}

// tree is pid and all its descendants.
func tree(pid int) []int {
	out := []int{pid}
	for _, task := range tasks(pid) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task))
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, tree(c)...)
			}
		}
	}
	return out
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// pssKiB reads the Pss line of /proc/pid/smaps_rollup.
func pssKiB(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Pss:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// statusKiB reads a "kB" line of /proc/pid/status.
func statusKiB(pid int, key string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(status(pid, key), " kB"))
	return n
}
