//go:build bench

package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemory reports the peak resident memory (VmHWM) of the acbox parent
// and of the sandbox's pid 1 while a member sleeps. Target: under 15 MiB each.
func TestMemory(t *testing.T) {
	bin := acboxBin(t)
	cmd := exec.Command(bin, "run", "--", "sleep", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	time.Sleep(700 * time.Millisecond)
	parent := cmd.Process.Pid
	helper := firstChild(parent)
	fmt.Printf("memory while the member sleeps (VmHWM, target < 15 MiB each): parent %s, pid 1 %s\n",
		status(parent, "VmHWM"), status(helper, "VmHWM"))
}

func firstChild(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	f := strings.Fields(string(b))
	if len(f) == 0 {
		for _, task := range tasks(pid) {
			b, _ = os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task))
			if f = strings.Fields(string(b)); len(f) > 0 {
				break
			}
		}
	}
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

func tasks(pid int) []string {
	es, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func status(pid int, key string) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "n/a"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}
