//go:build linux

package registry

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

func TestComputeCap(t *testing.T) {
	cases := []struct {
		name           string
		host, per      int64
		override, want int
	}{
		{"default 2GiB on 24GiB", 24 << 30, 2 << 30, 0, 9},
		{"floor", 8 << 30, 3 << 30, 0, 2},
		{"limit larger than host", 2 << 30, 4 << 30, 0, 0},
		{"override", 2 << 30, 4 << 30, 50, 50},
		{"zero per-sandbox means default", 8 << 30, 0, 0, 3},
	}
	for _, c := range cases {
		if got := ComputeCap(c.host, c.per, c.override); got.Max != c.want {
			t.Errorf("%s: cap %d (%s), want %d", c.name, got.Max, got.From, c.want)
		}
	}
}

func TestHostMemory(t *testing.T) {
	b, _ := os.ReadFile("/proc/meminfo")
	var kb int64
	fmt.Sscanf(string(b), "MemTotal: %d kB", &kb)
	got, err := policy.HostMemory()
	if err != nil || got != kb<<10 {
		t.Fatalf("HostMemory %d, %v; /proc/meminfo says %d kB", got, err, kb)
	}
}

func TestAdmitRefusal(t *testing.T) {
	r := newRegistry(t)
	c := Cap{Max: 2, From: "test"}
	r.Register(deadEntry(t, "ghost")) // must not count: its owner is gone
	for _, id := range []string{"one", "two"} {
		if _, err := r.Admit(selfEntry(t, id), c); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	_, err := r.Admit(selfEntry(t, "three"), c)
	if !errors.Is(err, policy.ErrRefused) || policy.ExitCode(err) != policy.ExitRefused {
		t.Fatalf("third launch: %v, want a refusal", err)
	}
	for _, want := range []string{"2 of your sandboxes already run on this host", "counts uid " + strconv.Itoa(os.Getuid()) + "'s sandboxes", "cap is 2", "--wait", "acbox stop", "max_sandboxes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
	if _, err := r.Admit(selfEntry(t, "big"), Cap{Max: 0, From: "x"}); err == nil || !strings.Contains(err.Error(), "larger than three quarters") {
		t.Fatalf("cap 0: %v", err)
	}
}

// TestAdmitRaceGoroutines admits 64 launches at once against a cap of 5.
func TestAdmitRaceGoroutines(t *testing.T) {
	r := newRegistry(t)
	const n, max = 64, 5
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.Admit(selfEntry(t, fmt.Sprint("g", i)), Cap{Max: max}); err == nil {
				mu.Lock()
				admitted++
				mu.Unlock()
			} else if !errors.Is(err, policy.ErrRefused) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if list, _ := r.List(); admitted != max || len(list) != max {
		t.Fatalf("admitted %d, registered %d; want exactly %d", admitted, len(list), max)
	}
}

// TestAdmitRaceProcesses starts 24 processes that each admit one sandbox
// (owned by themselves) against a cap of 4, and keep it until told to go.
func TestAdmitRaceProcesses(t *testing.T) {
	if os.Getenv("ACBOX_ADMIT_CHILD") != "" {
		admitChild()
		return
	}
	state := t.TempDir() + "/state"
	const n, max = 24, 4
	var cmds []*exec.Cmd
	var outs []*bufio.Reader
	var ins []io.Closer
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAdmitRaceProcesses$")
		cmd.Env = append(os.Environ(), "ACBOX_ADMIT_CHILD="+fmt.Sprint(i), "ACBOX_ADMIT_STATE="+state, fmt.Sprint("ACBOX_ADMIT_MAX=", max))
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, ins, outs = append(cmds, cmd), append(ins, in), append(outs, bufio.NewReader(out))
	}
	admitted := 0
	for i, o := range outs {
		line, _ := o.ReadString('\n')
		switch strings.TrimSpace(line) {
		case "admitted":
			admitted++
		case "refused":
		default:
			t.Errorf("child %d: %q", i, line)
		}
	}
	for i := range cmds {
		ins[i].Close()
		cmds[i].Wait()
	}
	if admitted != max {
		t.Fatalf("%d of %d processes admitted; the cap is %d", admitted, n, max)
	}
	r, _ := OpenRegistry(state)
	if dead, _ := r.Reap(); len(dead) != max {
		t.Fatalf("after the owners exited, %d entries were reaped; want %d", len(dead), max)
	}
}

func admitChild() {
	r, err := OpenRegistry(os.Getenv("ACBOX_ADMIT_STATE"))
	if err == nil {
		var max int
		fmt.Sscan(os.Getenv("ACBOX_ADMIT_MAX"), &max)
		e, _ := NewEntry(&policy.Plan{Backend: "native"}, "p"+os.Getenv("ACBOX_ADMIT_CHILD"))
		_, err = r.Admit(e, Cap{Max: max})
	}
	switch {
	case err == nil:
		fmt.Println("admitted")
	case errors.Is(err, policy.ErrRefused):
		fmt.Println("refused")
	default:
		fmt.Println("error:", err)
	}
	io.Copy(io.Discard, os.Stdin) // hold the entry until the parent closes stdin
	os.Exit(0)
}

// TestAdmitCountsForeign: sandboxes running outside this registry (other
// users' containers) count towards the cap; one the registry holds does
// not count twice.
func TestAdmitCountsForeign(t *testing.T) {
	r := newRegistry(t)
	if _, err := r.Admit(selfEntry(t, "one"), Cap{Max: 10}); err != nil {
		t.Fatal(err)
	}
	foreign := []string{"one", "x", "y", "y"}
	_, err := r.AdmitCounting(selfEntry(t, "two"), Cap{Max: 3, From: "test"}, foreign)
	if !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), "1 of your sandboxes already run") || !strings.Contains(err.Error(), "docker daemon runs 2 more acbox containers") {
		t.Fatalf("with 1 own and 2 foreign against a cap of 3: %v", err)
	}
	if _, err := r.AdmitCounting(selfEntry(t, "two"), Cap{Max: 4}, foreign); err != nil {
		t.Fatalf("cap 4: %v", err)
	}
}
