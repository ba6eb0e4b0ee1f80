package nsjail

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// The parent's side while the sandbox runs: messages from pid 1, signals
// passed on, the terminal relay, and how the launch ended.

// setupDeadline bounds the time from the release to pid 1's ready
// message (setup is milliseconds; a pid 1 that cannot finish must not
// hold the launch, and the signals held meanwhile, forever).
var setupDeadline = 60 * time.Second

// supervise waits for the helper's ready message, forwards signals to it,
// and returns the member's exit once the helper is gone. Signals that
// arrive before ready are held and delivered once the member runs: before
// that, pid 1 has not yet taken over their handling.
func (l *launch) supervise(st *bufio.Reader, sigs <-chan os.Signal) (*backend.Outcome, error) {
	msgs := make(chan helperMsg, 4)
	go readMsgs(st, msgs)
	res := &backend.Outcome{Code: -1}
	var held []os.Signal
	ready := false
	setup := time.NewTimer(setupDeadline)
	defer setup.Stop()
	for {
		select {
		case <-setup.C:
			if ready {
				continue
			}
			l.kill()
			if l.forked != nil {
				// The member may have run: it is reported killed with
				// the sandbox, not as a launch that ran nothing.
				res.Duration = time.Since(l.start)
				l.diedWithMember(res, fmt.Sprintf("the sandbox's pid 1 started the member but did not report it running within %s, so the sandbox was ended", setupDeadline))
				return res, nil
			}
			return nil, fmt.Errorf("%w: the sandbox's pid 1 did not report ready within %s of its release, so it was ended "+
				"(it waits on the kernel when the user's queued signals are all used up, by other sandboxes' members or "+
				"other processes of the user: see `ulimit -i`); the launch can be retried once they are freed",
				policy.ErrCannotSandbox, setupDeadline)
		case m, ok := <-msgs:
			if !ok {
				msgs = nil
				continue
			}
			if err := l.handle(m, res); err != nil {
				l.kill()
				return nil, err
			}
			if m.Kind == "ready" {
				ready = true
				for _, sig := range held {
					l.child.Signal(sig)
				}
				held = nil
			}
		case sig := <-sigs:
			if !slices.Contains(forwarded, sig) {
				continue // SIGPIPE, from the caller's catch
			}
			if !ready {
				// One of each, as the kernel keeps a standard signal
				// pending once: a nested client's requester can send
				// signal lines as fast as it likes while pid 1 is set
				// up, and each must not cost this process memory.
				if !slices.Contains(held, sig) {
					held = append(held, sig)
				}
				continue
			}
			l.child.Signal(sig)
		case <-l.waited:
			for m := range orClosed(msgs) {
				if err := l.handle(m, res); err != nil {
					return nil, err
				}
			}
			return l.finish(res)
		}
	}
}

func (l *launch) handle(m helperMsg, res *backend.Outcome) error {
	switch m.Kind {
	case "fork":
		l.forked = m.Report
	case "ready":
		if m.Entered != len(l.leafFDs) {
			return fmt.Errorf("%w: pid 1 entered %d of the sandbox's %d cgroup leaves: the binary run as pid 1 (%s) is not the build of this acbox; run acbox's own binary", policy.ErrCannotSandbox, m.Entered, len(l.leafFDs), l.opt.Exe)
		}
		res.Report = m.Report
		l.cg.report(m.Report) // cgroup hook: the limits in force (limits_linux.go)
		if err := l.startRelay(); err != nil {
			return err
		}
		if l.opt.OnReady != nil {
			l.opt.OnReady(l.started(m.Report))
		}
	case "exit":
		res.Code, res.Signal = m.Code, m.Signal
		if m.Signal != 0 {
			res.Code = 128 + m.Signal
		}
	case "error":
		return helperError(m)
	}
	return nil
}

func helperError(m helperMsg) error {
	if m.Exec != nil {
		return m.Exec
	}
	e := fmt.Errorf("%w: sandbox setup failed: %s", policy.ErrCannotSandbox, m.Error)
	switch m.Step {
	case "verify":
		e = fmt.Errorf("%w: a requested control is not enforced: %s", policy.ErrCannotSandbox, m.Error)
	case "status": // readMsgs: the frame, not pid 1, was wrong
		e = fmt.Errorf("%w: a message from the sandbox's pid 1 was refused: %s", policy.ErrCannotSandbox, m.Error)
	}
	return e
}

func (l *launch) finish(res *backend.Outcome) (*backend.Outcome, error) {
	l.relay.stop()
	res.Duration = time.Since(l.start)
	if res.Code >= 0 {
		return res, nil
	}
	// The helper died without reporting the member's exit: killed from
	// outside, or crashed.
	switch diedAs(l.child.ws, l.forked != nil, res.Report != nil) {
	case diedWithMember:
		l.diedWithMember(res, pid1Died(l.child.ws))
		return res, nil
	case diedBySignal:
		return nil, fmt.Errorf("%w: the sandbox was killed by signal %d before the member started", policy.ErrCannotSandbox, int(l.child.ws.Signal()))
	}
	return nil, errors.New("the sandbox ended before the member started; see the errors above")
}

// How pid 1's death without the member's exit message is reported.
const (
	diedBeforeMember = iota // pid 1 exited on its own: its error message says why
	diedBySignal            // killed before the member could run: 126, nothing ran
	diedWithMember          // the member may have run: it died with its pid namespace
)

// diedAs classifies pid 1's death. Once pid 1 has sent its fork message
// (forked), or ready, the member may have run, whatever ended pid 1 (the
// memory cgroup's OOM killer, which picks pid 1 when the member's memory
// is the kernel's, a stop escalated to SIGKILL, a crash): the kernel
// SIGKILLed the member with its pid namespace, and 126 ("nothing was
// run") would have a client run it again elsewhere.
func diedAs(ws syscall.WaitStatus, forked, ready bool) int {
	switch {
	case forked || ready:
		return diedWithMember
	case ws.Signaled():
		return diedBySignal
	}
	return diedBeforeMember
}

// diedWithMember reports the member as SIGKILLed (it died with its pid
// namespace), with the started event it may not have had (pid 1 can die
// between the fork and its ready message), and says why on stderr. The
// fork message's report gets the cgroup's limits as ready's does.
func (l *launch) diedWithMember(res *backend.Outcome, why string) {
	res.Code, res.Signal = 128+int(syscall.SIGKILL), int(syscall.SIGKILL)
	if res.Report == nil {
		res.Report = l.forked
		l.cg.report(res.Report) // cgroup hook: the limits in force (limits_linux.go)
		if l.opt.OnReady != nil {
			l.opt.OnReady(l.started(res.Report))
		}
	}
	fmt.Fprintf(l.opt.Stderr, "acbox: %s; the member was killed with it\n", why)
}

// started is what OnReady is told. pid 1's pidfd goes with its pid: pid 1
// may be reaped by then (diedWithMember calls it after the reap, and a
// pid 1 that dies right after its ready message is reaped meanwhile), and
// a caller that opened a pidfd on the pid could pin a process that took it.
func (l *launch) started(rep *policy.Report) backend.Started {
	return backend.Started{ID: l.opt.ID, Pid: l.child.pid, Pidfd: l.child.fd(), Report: rep}
}

// pid1Died says how pid 1 ended while the member ran.
func pid1Died(ws syscall.WaitStatus) string {
	if !ws.Signaled() {
		return fmt.Sprintf("the sandbox's pid 1 exited with status %d while the member ran", ws.ExitStatus())
	}
	by := ""
	if ws.Signal() == syscall.SIGKILL {
		by = " (by acbox stop after its grace, or by the out-of-memory killer of the sandbox's memory limit)"
	}
	return fmt.Sprintf("the sandbox's pid 1 was killed by signal %d while the member ran%s", int(ws.Signal()), by)
}

// readMsgs passes pid 1's status frames on until the pipe closes. A
// frame that cannot be read ends the stream with an error message (step
// "status"): the launch fails rather than miss a ready or an exit.
func readMsgs(r *bufio.Reader, out chan<- helperMsg) {
	defer close(out)
	for {
		b, err := readFrame(r, frameMsg, "status")
		if errors.Is(err, io.EOF) {
			return
		}
		var m helperMsg
		if err == nil {
			m, err = decodeMsg(b)
		}
		if err != nil {
			out <- helperMsg{Kind: "error", Step: "status", Error: err.Error()}
			return
		}
		out <- m
	}
}

// orClosed lets a drained (nil) channel be ranged over without blocking.
func orClosed(c chan helperMsg) chan helperMsg {
	if c == nil {
		c = make(chan helperMsg)
		close(c)
	}
	return c
}

// startRelay receives the member's pty master and relays it to the user's
// terminal.
func (l *launch) startRelay() error {
	if l.ptyParent == nil {
		return nil
	}
	master, err := recvFd(int(l.ptyParent.Fd()))
	if err != nil {
		return fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	l.relay = startRelay(l.opt.Stdin, l.opt.Stdout, master)
	return nil
}
