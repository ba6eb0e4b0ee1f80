//go:build integration

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPid1ThreadsHoldNoCapabilities: once the member runs, no thread of
// the sandbox's pid 1 holds a capability in its inheritable, permitted,
// effective or ambient set (root's pid 1 held every capability as an
// ambient one for its setup; the drop is one all-thread broadcast), but
// in host mode, where every thread holds exactly CAP_SYS_PTRACE (in the
// sandbox's user namespace) in its permitted and effective sets, for the
// listen guard's pidfd_getfd. Read from the host, where pid 1 is the
// member's parent.
func TestPid1ThreadsHoldNoCapabilities(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for _, netMode := range []string{"none", "proxy", "host"} {
			t.Run(netMode, func(t *testing.T) { pid1Caps(t, m, netMode) })
		}
	})
}

// capSysPtrace is CAP_SYS_PTRACE (19) as /proc/PID/status shows it.
const capSysPtrace = "0000000000080000"

func pid1Caps(t *testing.T, m mode, netMode string) {
	want := map[string]string{"CapInh": "0000000000000000", "CapPrm": "0000000000000000",
		"CapEff": "0000000000000000", "CapAmb": "0000000000000000"}
	if netMode == "host" {
		want["CapPrm"], want["CapEff"] = capSysPtrace, capSysPtrace
	}
	mk := newMarker()
	b := startBox(t, m, "run", "--net", netMode, "--", "sh", "-c", "echo ready; exec sleep "+mk)
	b.waitLine(t, "ready")
	pid1 := 0
	waitFor(5*time.Second, func() bool {
		for _, pid := range markedProcesses([]string{mk}) {
			if cmd, _ := procCmdline(pid); strings.HasPrefix(cmd, "sleep") {
				pid1, _ = parentOf(pid)
			}
		}
		return pid1 != 0
	})
	if cmd, _ := procCmdline(pid1); pid1 == 0 || cmd != "acbox-init" {
		t.Fatalf("pid 1 (the member's parent) not found on the host: pid %d, command %q", pid1, cmd)
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid1))
	if len(tasks) < 2 {
		t.Fatalf("pid 1 (host pid %d) has %d threads; want the Go runtime's several", pid1, len(tasks))
	}
	for _, p := range tasks {
		st, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(st), "\n") {
			k, v, _ := strings.Cut(l, ":")
			switch k {
			case "CapInh", "CapPrm", "CapEff", "CapAmb":
				if v = strings.TrimSpace(v); v != want[k] {
					t.Errorf("%s: %s is %s while the member runs; want %s", p, k, v, want[k])
				}
			}
		}
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	b.wait(t, 10*time.Second)
}

// parentOf reads the parent pid (field 4) of /proc/PID/stat.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("short /proc/%d/stat: %q", pid, s)
	}
	return strconv.Atoi(f[1])
}
