package coordinator

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/coordinator/sys"
)

// A child launched --within ends with its requester, as a broker's child
// ends with its requester: not only when `acbox stop` names the requester,
// also when the requester's member exits and when its acbox dies (even by
// SIGKILL). Without this the child outlived the sandbox it was held
// within, with a registry entry naming a requester that no longer exists.
// The requester is pinned by pidfd (its acbox, and its pid 1 once
// recorded) when the child's plan is resolved; a requester gone by then
// refuses the launch, one that ends later stops the child the way
// `acbox stop` stops an owner: SIGTERM to this acbox, which passes it on
// to the member, and after requesterGrace SIGKILL of the sandbox (its
// pid 1: the pid namespace, or the container's init; a container whose
// pid 1 the backend could not verify in this pid namespace is killed
// through the Engine API, sandboxPin), never of this acbox, so that the checks after the run still run: a member that
// ignores SIGTERM must not choose to end its sandbox unchecked. Only if
// the sandbox has not ended sandboxKillWait after that (acbox wedged, a
// pid 1 it may not signal) is this acbox SIGKILLed, and it says so.

// requesterGrace is how long a child's member has after SIGTERM when its
// requester ends (acbox stop's default grace).
const requesterGrace = 5 * time.Second

// sandboxKillWait bounds the wait for a sandbox whose pid 1 was SIGKILLed
// to be reported ended by its backend.
const sandboxKillWait = 10 * time.Second

// pinRequester opens pidfds for the live processes of sandbox id: its
// owning acbox, and its pid 1 when recorded (a broker's child shares its
// owner with its requester, so the owner alone would outlive it).
func (l *Launcher) pinRequester(id string) ([]int, error) {
	gone := policy.Refuse(id, "is not a live sandbox (it ended while this launch was resolved)", "name a running sandbox of yours (acbox ps)")
	e, err := l.Registry.Get(id)
	if err != nil {
		return nil, policy.AtField("within", gone)
	}
	owner, err := pin(e.OwnerPid, e.OwnerStart)
	if err != nil {
		return nil, policy.AtField("within", gone)
	}
	fds := []int{owner}
	if e.HelperPid > 0 {
		// A pid 1 that is gone is a member that has exited: its checks may
		// be running, and a child launched now would write after them.
		// (One that is not this user's, a docker init, is not watched; nor
		// is a docker requester's that was not verified, which is not
		// recorded: its owner is.)
		helper, err := pin(e.HelperPid, e.HelperStart)
		if err == nil {
			fds = append(fds, helper)
		} else if start, serr := registry.ProcStart(e.HelperPid); serr != nil || start != e.HelperStart {
			closeAll(fds)
			return nil, policy.AtField("within", gone)
		}
	}
	return fds, nil
}

// watchRequester stops this launch when any of fds (pinRequester's) is
// readable, that is when the process ended (none: nothing to watch).
// sandbox is the sandbox's pid 1 pinned once it runs (sandboxPin). The
// returned func ends the watch; call it once, when the sandbox has ended.
func watchRequester(fds []int, errw io.Writer, parent, id string, sandbox *sandboxPin) func() {
	if len(fds) == 0 {
		return func() {}
	}
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		if !waitAnyExit(fds, done) {
			return
		}
		fmt.Fprintf(errw, "acbox: sandbox %s, which %s was launched within, has ended: stopping %s\n", parent, id, id)
		self, _ := os.FindProcess(os.Getpid())
		self.Signal(syscall.SIGTERM)
		select {
		case <-done:
			return
		case <-time.After(requesterGrace):
		}
		if sandbox.kill() {
			fmt.Fprintf(errw, "acbox: %s did not end %v after SIGTERM: its sandbox is killed; the checks after the run follow\n", id, requesterGrace)
			select {
			case <-done:
				return
			case <-time.After(sandboxKillWait):
			}
		}
		fmt.Fprintf(errw, "acbox: %s did not end after its sandbox was killed: killing acbox, so the checks after the run do not run; inspect its write grants\n", id)
		self.Signal(syscall.SIGKILL)
	}()
	// Waiting for the goroutine keeps the pidfds open while it polls them:
	// a closed (or reused) descriptor would poll readable.
	return func() { close(done); <-over }
}

// waitAnyExit waits until one of the pidfds is readable (true) or done is
// closed (false).
func waitAnyExit(fds []int, done <-chan struct{}) bool {
	for {
		for _, fd := range fds {
			ok, err := sys.WaitReadable(fd, 100*time.Millisecond)
			select {
			case <-done:
				return false // the sandbox ended first
			default:
			}
			if ok || err != nil {
				return true // exited, or the pidfd broke: fail closed
			}
		}
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		sys.Close(fd)
	}
}
