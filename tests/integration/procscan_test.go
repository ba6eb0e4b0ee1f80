//go:build integration

package integration

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	markersMu sync.Mutex
	markers   []string
)

// newMarker returns a unique duration for `sleep`, such as 1000.123456789:
// it finds every process of a test in /proc by its command line, even after
// setsid or a double fork.
func newMarker() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(1e9))
	s := fmt.Sprintf("1000.%09d", n.Int64())
	markersMu.Lock()
	markers = append(markers, s)
	markersMu.Unlock()
	return s
}

func allMarkers() []string {
	markersMu.Lock()
	defer markersMu.Unlock()
	return append([]string{}, markers...)
}

// markedProcesses lists host pids whose command line holds any marker.
func markedProcesses(marks []string) []int {
	if len(marks) == 0 {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, mk := range marks {
			if bytes.Contains(cl, []byte(mk)) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// childrenOf lists host pids whose parent is pid.
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		if ppid, ok := procField(p, "PPid"); ok && ppid == fmt.Sprint(pid) {
			out = append(out, p)
		}
	}
	return out
}

// procField reads one field of /proc/PID/status.
func procField(pid int, key string) (string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	st, ok := procField(pid, "State")
	return ok && !strings.HasPrefix(st, "Z")
}

// killAll SIGKILLs the given pids (processes this suite started).
func killAll(pids []int) {
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
