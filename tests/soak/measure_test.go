//go:build soak

package soak

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/nsjail"
)

// figures are what must not grow, each with the growth tolerated: a few
// MiB of heap and RSS for the runtime's own pacing, a couple of processes
// of the user that come and go on the host; none of anything acbox owns.
type figure struct {
	name      string
	value     int64
	tolerance int64
	unit      string
}

func measure(w *world) []figure {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// Goroutines of finished launches (waiters, relays) may take a moment
	// to return after the last launch does.
	time.Sleep(200 * time.Millisecond)
	entries, _ := w.reg.List()
	return []figure{
		{"open fds", count("/proc/self/fd"), 0, ""},
		{"goroutines", int64(runtime.NumGoroutine()), 2, ""},
		{"heap in use", int64(ms.HeapInuse), 8 << 20, "B"},
		{"RSS", statusKB("VmRSS") << 10, 24 << 20, "B"},
		{"host mounts", lines("/proc/self/mountinfo"), 0, ""},
		{"children", children(), 0, ""},
		{"user processes", userProcs(), 3, ""},
		{"registry entries", int64(len(entries)), 0, ""},
		{"files under run/", count(filepath.Join(w.host.StateDir, "run")), 0, ""},
		{"acbox containers", containers(), 0, ""},
		{"sandbox cgroups", int64(nsjail.CgroupLeaves()), 0, ""},
	}
}

// settle measures until nothing is above its tolerance, for at most 5s:
// the processes a launch leaves on the host (docker's shims) exit
// asynchronously.
func settle(w *world, before []figure) []figure {
	deadline := time.Now().Add(5 * time.Second)
	for {
		after := measure(w)
		if !grown(before, after) || time.Now().After(deadline) {
			return after
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func grown(before, after []figure) bool {
	for i, b := range before {
		if after[i].value-b.value > b.tolerance {
			return true
		}
	}
	return false
}

func compare(t *testing.T, before, after []figure) {
	t.Logf("%-18s %14s %14s %10s", "figure", "before", "after", "growth")
	for i, b := range before {
		a := after[i]
		t.Logf("%-18s %14s %14s %10s", b.name, show(b.value, b.unit), show(a.value, a.unit), show(a.value-b.value, b.unit))
		if a.value-b.value > b.tolerance {
			t.Errorf("%s grew from %s to %s (tolerance %s)", b.name, show(b.value, b.unit), show(a.value, a.unit), show(b.tolerance, b.unit))
		}
	}
}

func show(v int64, unit string) string {
	if unit == "B" {
		return strconv.FormatFloat(float64(v)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatInt(v, 10)
}

func count(dir string) int64 {
	e, _ := os.ReadDir(dir)
	return int64(len(e))
}

func lines(path string) int64 {
	b, _ := os.ReadFile(path)
	return int64(bytes.Count(b, []byte("\n")))
}

func statusKB(key string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// userProcs counts the /proc entries owned by this process's user, kernel
// threads aside (as root they come and go with the host's load).
func userProcs() int64 {
	return countProcs(func(pid string, st *syscall.Stat_t) bool {
		return int(st.Uid) == os.Getuid() && pid != "2" && ppid(pid) != "2"
	})
}

// children counts this process's children: every sandbox's helper is one
// while it runs.
func children() int64 {
	self := strconv.Itoa(os.Getpid())
	return countProcs(func(pid string, _ *syscall.Stat_t) bool { return ppid(pid) == self })
}

func countProcs(match func(pid string, st *syscall.Stat_t) bool) int64 {
	ents, _ := os.ReadDir("/proc")
	n := int64(0)
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) == nil && match(e.Name(), &st) {
			n++
		}
	}
	return n
}

func ppid(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "PPid:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// containers counts containers labelled by acbox; -1 without a daemon.
func containers() int64 {
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=acbox.id").Output()
	if err != nil {
		return -1
	}
	return int64(len(strings.Fields(string(out))))
}
