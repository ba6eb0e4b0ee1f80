//go:build integration

package lifecycle

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdInotify is the member: it creates inotify instances until the kernel
// refuses one, prints "held N errno E", and keeps them until its stdin ends.
const holdInotify = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < 100000 and libc.inotify_init1(0) >= 0:
    n += 1
print("held %d errno %d" % (n, ctypes.get_errno()), flush=True)
sys.stdin.read()
`

// oneInotify creates one inotify instance and prints "ok" or the errno.
const oneInotify = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("ok" if libc.inotify_init1(0) >= 0 else "errno %d" % ctypes.get_errno())
`

// TestInotifyHeadroom: a member that takes every inotify instance it can
// still leaves the same user able to create one on the host while the
// sandbox runs (an editor, a file watcher). Before the per-user counters
// were capped in the sandbox's user namespace, the member took them all
// and inotify_init1 failed outside with EMFILE until the sandbox ended.
func TestInotifyHeadroom(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		held, outside := r.holdAndProbe(t, holdInotify, oneInotify)
		t.Logf("%s: member %s; outside, the same user: %s", r.name, held, outside)
		if outside != "ok" {
			t.Errorf("while the member held every instance it could (%s), the same user on the host got %s; want ok", held, outside)
		}
	})
}

// holdSigpending is the member: it queues real-time signals to itself
// (blocked) until the kernel refuses one, prints "held N errno E", and
// keeps them pending until its stdin ends.
const holdSigpending = `
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
n = 0
while n < 10000000 and libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) == 0:
    n += 1
print("held %d errno %d" % (n, ctypes.get_errno()), flush=True)
sys.stdin.read()
`

// oneSigqueue queues one real-time signal to itself and prints "ok" or the
// errno.
const oneSigqueue = `
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
print("ok" if libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) == 0 else "errno %d" % ctypes.get_errno())
`

// TestSigpendingHeadroom: queued signals are counted per user across user
// namespaces; a member that queues all it can leaves the same user able to
// queue one on the host (the member's RLIMIT_SIGPENDING is a share).
func TestSigpendingHeadroom(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		held, outside := r.holdAndProbe(t, holdSigpending, oneSigqueue)
		t.Logf("%s: member %s; outside, the same user: %s", r.name, held, outside)
		if outside != "ok" {
			t.Errorf("while the member held every pending signal it could (%s), the same user on the host got %s; want ok", held, outside)
		}
	})
}

// holdAndProbe runs member (Python) in a sandbox until it prints its
// "held" line, then runs outside (Python) on the host as the same user,
// and returns both answers. The member is released by closing its stdin.
func (r *runner) holdAndProbe(t *testing.T, member, outside string) (string, string) {
	c := r.cmd("run", "--no-tty", "--", "/usr/bin/python3", "-c", member)
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	held := readLineWithin(stdout, 30*time.Second)
	if !strings.HasPrefix(held, "held ") {
		t.Fatalf("member: %q", held)
	}
	got := r.outsidePython(t, outside)
	stdin.Close()
	c.Wait()
	return held, got
}

// outsidePython runs a Python program on the host as the runner's user
// and returns its output.
func (r *runner) outsidePython(t *testing.T, prog string) string {
	c := exec.Command("/usr/bin/python3", "-c", prog)
	c.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	out, err := c.Output()
	if err != nil {
		t.Fatalf("python3 as %s: %v", r.name, err)
	}
	return strings.TrimSpace(string(out))
}

func readLineWithin(r io.Reader, d time.Duration) string {
	ch := make(chan string, 1)
	go func() { l, _ := bufio.NewReader(r).ReadString('\n'); ch <- strings.TrimSpace(l) }()
	select {
	case l := <-ch:
		return l
	case <-time.After(d):
		return "(nothing after " + d.String() + ")"
	}
}
