//go:build integration

package lifecycle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tight limits, so a misbehaving member costs the host little even when a
// limit does not hold. Not tighter on memory: pid 1 is a Go program under
// the same RLIMIT_DATA, and Go maps its heap in 64 MiB arenas, so below
// about 128 MiB pid 1 itself can die of ENOMEM (the launch then fails
// closed, but the test would not see the hog stopped).
const (
	tightPids   = 64
	tightMemory = "256MiB"
	watchdog    = 30 * time.Second
)

// TestForkBomb: the member forks without end in the background while the
// member itself sleeps 3 s. The sandbox must end when the member does, the
// number of host processes must stay near the cap, and the host must stay
// responsive (a fresh `true` runs quickly throughout).
func TestForkBomb(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		obs := r.watch(t, "fork bomb", "sh", "-c", "f() { f | f & }; f; exec sleep 3")
		t.Logf("%s: exit %d in %v; host processes +%d at most (cap %d); slowest `true` on the host %v; mechanism %q",
			r.name, obs.code, obs.took.Round(time.Millisecond), obs.maxProcs, tightPids, obs.maxLatency.Round(time.Millisecond), obs.mechanism)
		if obs.maxProcs > tightPids+16 {
			t.Errorf("the host gained %d processes; the cap is %d", obs.maxProcs, tightPids)
		}
	})
}

// TestMemoryHog: `tail /dev/zero` buffers an endless line. Under a memory
// cgroup the OOM killer ends it (exit 137); under RLIMIT_DATA its
// allocation fails (tail exits 1). Either way it ends and the host's
// available memory barely moves.
func TestMemoryHog(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		obs := r.watch(t, "memory hog", "tail", "/dev/zero")
		t.Logf("%s: exit %d in %v; host MemAvailable -%d MiB at most; slowest `true` %v; mechanism %q",
			r.name, obs.code, obs.took.Round(time.Millisecond), obs.maxMemDrop>>20, obs.maxLatency.Round(time.Millisecond), obs.mechanism)
		if obs.code == 0 {
			t.Errorf("the memory hog exited 0")
		}
		if obs.maxMemDrop > 512<<20 {
			t.Errorf("host available memory dropped by %d MiB; the limit is %s", obs.maxMemDrop>>20, tightMemory)
		}
	})
}

// observation is what watch saw on the host while a sandbox ran.
type observation struct {
	code       int
	took       time.Duration
	maxProcs   int // host processes above the count before the launch
	maxMemDrop int64
	maxLatency time.Duration
	mechanism  string
}

// watch runs one sandbox with tight limits and samples the host every
// 25 ms until it ends; after the watchdog it kills the owner and fails.
func (r *runner) watch(t *testing.T, what string, member ...string) observation {
	t.Helper()
	rep := filepath.Join(r.out(), strings.ReplaceAll(what, " ", "-")+".json")
	args := append([]string{"run", "--pids", fmt.Sprint(tightPids), "--memory", tightMemory, "--report", rep, "--"}, member...)
	c := r.cmd(args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	procs0, mem0 := hostProcs(), memAvailable()
	t0 := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	obs := observation{}
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			obs.code, obs.took = c.ProcessState.ExitCode(), time.Since(t0)
			obs.mechanism = mechanism(t, rep, r, stderr.String())
			return obs
		case <-time.After(watchdog - time.Since(t0)):
			c.Process.Kill()
			<-done
			t.Fatalf("%s: the sandbox did not end in %v", what, watchdog)
		case <-tick.C:
			obs.sample(procs0, mem0)
		}
	}
}

func (o *observation) sample(procs0 int, mem0 int64) {
	t := time.Now()
	exec.Command("true").Run()
	o.maxLatency = max(o.maxLatency, time.Since(t))
	o.maxProcs = max(o.maxProcs, hostProcs()-procs0)
	o.maxMemDrop = max(o.maxMemDrop, mem0-memAvailable())
}

// mechanism reads the report and checks it names what this user gets:
// a cgroup as root on a host with cgroups, rlimits otherwise.
func mechanism(t *testing.T, path string, r *runner, stderr string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report (%v); stderr: %s", err, stderr)
	}
	var rep struct {
		Limits map[string]string `json:"limits"`
	}
	json.Unmarshal(b, &rep)
	m := rep.Limits["mechanism"]
	if r.uid == 0 && !strings.HasPrefix(m, "cgroup") {
		t.Logf("root without a cgroup: %s", rep.Limits["cgroup"])
		if exists("/sys/fs/cgroup/pids") || exists("/sys/fs/cgroup/cgroup.controllers") {
			t.Errorf("root on a host with cgroups got %q: %s", m, rep.Limits["cgroup"])
		}
	}
	if r.uid != 0 && m != "rlimits" && !strings.HasPrefix(m, "cgroup v2") {
		t.Errorf("an unprivileged user got %q", m)
	}
	return m
}

func hostProcs() int {
	des, _ := os.ReadDir("/proc")
	n := 0
	for _, de := range des {
		if _, err := strconv.Atoi(de.Name()); err == nil {
			n++
		}
	}
	return n
}

func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
