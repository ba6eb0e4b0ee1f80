//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLaunchTrace prints where the wall time of `acbox run -- true` goes,
// phase by phase, from kernel tracepoints (perf record -a), so the figures
// include what no in-process timer sees: exec and runtime start of both
// processes, the wait for the release, the exits. The tracing adds a few
// microseconds per event; compare phases, not the total with TestStartup.
func TestLaunchTrace(t *testing.T) {
	bin := acboxBin(t)
	if os.Getuid() != 0 {
		t.Skip("perf record -a needs root")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed")
	}
	traceAs(t, bin, "")
	if u := unprivileged(); u != "" {
		traceAs(t, bin, u) // the product: rootless
	}
}

// traceAs prints the phase table of n launches as user ("": this process's).
func traceAs(t *testing.T, bin, user string) {
	const n = 25
	got := map[string][]float64{}
	for i := 0; i < n+2; i++ {
		ph, err := traceLaunch(t, bin, user)
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			continue // warm-up
		}
		for k, v := range ph {
			got[k] = append(got[k], v)
		}
	}
	who := "root"
	if user != "" {
		who = user
	}
	fmt.Printf("launch phases as %s from kernel tracepoints (median of %d, ms); %s\n", who, n, machine())
	var total float64
	for _, p := range tracePhases {
		v := got[p.name]
		if len(v) == 0 {
			t.Fatalf("phase %q not seen", p.name)
		}
		sort.Float64s(v)
		m := v[len(v)/2]
		total += m
		fmt.Printf("  %-34s %6.2f  (%s)\n", p.name, m, p.what)
	}
	fmt.Printf("  %-34s %6.2f\n", "sum of medians", total)
}

// tracePhases are the spans between consecutive marks, in order.
var tracePhases = []struct{ name, from, to, what string }{
	{"parent: exec to pid 1 exec", "parent exec", "pid1 exec", "runtime start, parse, plan, admission, grants, clone"},
	{"pid 1: exec to pivot_root", "pid1 exec", "pivot", "runtime start, config, mounts"},
	{"pid 1: pivot_root to landlock", "pivot", "landlock", "hostname, network, release, limits, member fork"},
	{"member: landlock to exec", "landlock", "member exec", "seccomp, capabilities, exec"},
	{"member: exec to exit", "member exec", "member exit", "the command itself"},
	{"pid 1: member exit to pid 1 exit", "member exit", "pid1 exit", "reap, exit message, teardown"},
	{"parent: pid 1 exit to exit", "pid1 exit", "parent exit", "reap, exit scan, registry, report"},
}

var traceEvents = []string{"sched:sched_process_exec", "sched:sched_process_exit",
	"syscalls:sys_enter_pivot_root", "syscalls:sys_enter_landlock_restrict_self"}

// traceLaunch runs one launch under perf, as user when not "" (setpriv
// execs acbox in the same process), and returns its phases in ms.
func traceLaunch(t *testing.T, bin, user string) (map[string]float64, error) {
	data := filepath.Join(t.TempDir(), "perf.data")
	args := []string{"record", "-q", "-a", "-o", data}
	for _, e := range traceEvents {
		args = append(args, "-e", e)
	}
	args = append(args, "--")
	if user != "" {
		args = append(args, asUser(user)...)
	}
	rec := exec.Command("perf", append(args, bin, "run", "--", "true")...)
	rec.Dir = os.TempDir()
	if out, err := rec.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("perf record: %w: %s", err, out)
	}
	out, err := exec.Command("perf", "script", "-i", data, "-F", "comm,pid,tid,time,event,trace").Output()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	marks, err := traceMarks(out)
	if err != nil {
		return nil, err
	}
	ph := map[string]float64{}
	for _, p := range tracePhases {
		ph[p.name] = float64(marks[p.to]-marks[p.from]) / float64(time.Millisecond)
	}
	return ph, nil
}

// traceMarks finds the marks of one launch in perf script's output: the
// parent's exec, pid 1's exec of /proc/self/exe, pid 1's pivot_root, the
// member thread's landlock_restrict_self, the member's exec and exit, and
// the last exit of pid 1's and the parent's thread groups.
func traceMarks(out []byte) (map[string]time.Duration, error) {
	m := map[string]time.Duration{}
	var parent, pid1, member string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] == "perf" {
			continue
		}
		pidTid := strings.SplitN(f[1], "/", 2)
		sec, err := strconv.ParseFloat(strings.TrimSuffix(f[2], ":"), 64)
		if len(pidTid) != 2 || err != nil {
			continue
		}
		at, pid, line := time.Duration(sec*float64(time.Second)), pidTid[0], sc.Text()
		set := func(k string) {
			if _, ok := m[k]; !ok {
				m[k] = at
			}
		}
		switch ev := f[3]; {
		case ev == "sched:sched_process_exec:" && pid1 == "" && (parent == "" || pid == parent):
			parent = pid // the last exec before pid 1's: acbox's, not setpriv's
			m["parent exec"] = at
		case ev == "sched:sched_process_exec:" && strings.Contains(line, "filename=/proc/self/exe"):
			// The first is pid 1's; a user's pid 1 also clones a traced IPC
			// child that stops at its exec of the same file and never runs.
			if pid1 == "" {
				pid1 = pid
				set("pid1 exec")
			}
		case ev == "sched:sched_process_exec:" && pid1 != "" && pid != pid1:
			member = pid
			set("member exec")
		case ev == "syscalls:sys_enter_pivot_root:" && pid == pid1:
			set("pivot")
		case ev == "syscalls:sys_enter_landlock_restrict_self:" && pid == pid1:
			set("landlock")
		case ev == "sched:sched_process_exit:" && strings.Contains(line, "group_dead=true"):
			switch pid {
			case member:
				set("member exit")
			case pid1:
				set("pid1 exit")
			case parent:
				set("parent exit")
			}
		}
	}
	for _, p := range tracePhases {
		for _, k := range []string{p.from, p.to} {
			if _, ok := m[k]; !ok {
				return nil, fmt.Errorf("mark %q not in the trace:\n%s", k, out)
			}
		}
	}
	return m, nil
}
