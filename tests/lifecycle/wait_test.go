//go:build integration

package lifecycle

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// waiter is one `acbox run --wait` whose stderr the test reads.
type waiter struct {
	cmd    *exec.Cmd
	stderr strings.Builder
	mu     sync.Mutex
	queued chan struct{} // closed at the "waiting" line
	done   chan struct{} // closed when it has exited
	code   int
}

// startWaiter starts acbox args and returns once it said it waits (or
// failed the test).
func (r *runner) startWaiter(t *testing.T, args ...string) *waiter {
	t.Helper()
	w := &waiter{cmd: r.cmd(args...), queued: make(chan struct{}), done: make(chan struct{})}
	pipe, err := w.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			w.mu.Lock()
			w.stderr.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			if !said && strings.Contains(sc.Text(), "waiting up to") {
				said = true
				close(w.queued)
			}
		}
		io.Copy(io.Discard, pipe)
		w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		if ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			w.code = 128 + int(ws.Signal())
		}
		close(w.done)
	}()
	select {
	case <-w.queued:
	case <-w.done:
		t.Fatalf("acbox %v ended before it waited: exit %d: %s", args, w.code, w.text())
	case <-time.After(20 * time.Second):
		t.Fatalf("acbox %v did not say it waits: %s", args, w.text())
	}
	return w
}

func (w *waiter) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

func (w *waiter) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-w.done:
		return w.code
	case <-time.After(d):
		w.cmd.Process.Kill()
		t.Fatalf("acbox did not end within %v: %s", d, w.text())
		return -1
	}
}

// tickets lists the admission queue's files.
func (r *runner) tickets() []string {
	des, _ := os.ReadDir(filepath.Join(r.state(), "queue"))
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// TestWaitInOrder: with max_sandboxes 1, a launch without --wait is
// refused with 125 and told about --wait; launches with --wait queue and
// all run, one at a time, in the order they came, each saying once that
// it waits; nothing is left in the queue.
func TestWaitInOrder(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		r.writeConfig(t, `{"max_sandboxes": 1}`)
		holder := r.cmd("run", "--", "sleep", "2.31")
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		r.waitPs(t, 1)
		_, stderr, code := r.run(t, "run", "--", "true")
		if code != policy.ExitRefused || !strings.Contains(stderr, "--wait") || !strings.Contains(stderr, "of your sandboxes already run on this host") {
			t.Fatalf("without --wait: exit %d, want %d and a refusal naming --wait and whose sandboxes count: %s", code, policy.ExitRefused, stderr)
		}
		out := filepath.Join(r.out(), "order")
		const n = 4
		var ws []*waiter
		for i := range n {
			ws = append(ws, r.startWaiter(t, "run", "--wait=60s", "-w", r.out(), "--",
				"sh", "-c", "echo "+strconv.Itoa(i)+" >> "+out+"; sleep 0.2"))
		}
		for i, w := range ws {
			if code := w.wait(t, 60*time.Second); code != 0 {
				t.Errorf("waiter %d: exit %d: %s", i, code, w.text())
			}
			if c := strings.Count(w.text(), "waiting up to"); c != 1 {
				t.Errorf("waiter %d said %d times that it waits: %s", i, c, w.text())
			}
		}
		holder.Wait()
		b, _ := os.ReadFile(out)
		if got := strings.Fields(string(b)); strings.Join(got, " ") != "0 1 2 3" {
			t.Errorf("members ran in the order %v, want 0 1 2 3", got)
		}
		if q := r.tickets(); len(q) != 0 {
			t.Errorf("tickets left in the queue: %v", q)
		}
	})
}

// TestWaitDeadWaiter: a waiter killed with SIGKILL (which it cannot
// catch) does not block those behind it, and its ticket is gone after
// the queue moved on; a waiter given Ctrl-C (SIGINT) leaves at once with
// 130, its ticket and run directory removed; a wait that runs out is
// refused with 125. Each launch delegates, so that it has a run directory
// (the broker's socket) while it waits: a launch with no socket there
// makes none.
func TestWaitDeadWaiter(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		r.writeConfig(t, `{"max_sandboxes": 1}`)
		holder := r.cmd("run", "--delegate", "--", "sleep", "3.17")
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		r.waitPs(t, 1)
		killed := r.startWaiter(t, "run", "--delegate", "--wait=60s", "--", "true")
		interrupted := r.startWaiter(t, "run", "--delegate", "--wait=60s", "--", "true")
		last := r.startWaiter(t, "run", "--delegate", "--wait=60s", "--", "true")
		if q := r.tickets(); len(q) != 3 {
			t.Fatalf("queue %v, want 3 tickets", q)
		}
		killed.cmd.Process.Signal(syscall.SIGKILL)
		killed.wait(t, 10*time.Second)
		interrupted.cmd.Process.Signal(syscall.SIGINT)
		if code := interrupted.wait(t, 10*time.Second); code != 130 || !strings.Contains(interrupted.text(), "nothing was started") {
			t.Errorf("Ctrl-C while waiting: exit %d, want 130: %s", code, interrupted.text())
		}
		if q := r.tickets(); len(q) != 2 {
			t.Errorf("after Ctrl-C, queue %v: want the killed waiter's and the last one's", q)
		}
		if runs, _ := os.ReadDir(filepath.Join(r.state(), "run")); len(runs) != 3 {
			t.Errorf("after Ctrl-C, run directories %v: want the holder's, the killed waiter's and the last one's", runs)
		}
		if code := last.wait(t, 30*time.Second); code != 0 {
			t.Errorf("the waiter behind a killed one: exit %d: %s", code, last.text())
		}
		holder.Wait()
		if q := r.tickets(); len(q) != 0 {
			t.Errorf("tickets left after the queue moved on: %v", q)
		}
		// The killed waiter's run directory is what any killed launch
		// leaves: acbox gc removes it.
		if _, stderr, code := r.run(t, "gc"); code != 0 {
			t.Fatalf("gc: exit %d: %s", code, stderr)
		}
		if runs, _ := os.ReadDir(filepath.Join(r.state(), "run")); len(runs) != 0 {
			t.Errorf("run directories left: %v", runs)
		}
		holder = r.cmd("run", "--", "sleep", "3.19")
		holder.Start()
		r.waitPs(t, 1)
		_, stderr, code := r.run(t, "run", "--wait=1s", "--", "true")
		if code != policy.ExitRefused || !strings.Contains(stderr, "waited 1s") {
			t.Errorf("a wait that runs out: exit %d, want %d: %s", code, policy.ExitRefused, stderr)
		}
		holder.Wait()
	})
}
