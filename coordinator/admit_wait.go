package coordinator

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/registry"
)

// pollEvery is how often a waiting launch looks for a free slot. A slot
// freed is taken within this time; each look is one flock and a
// directory read (and, for the docker backend, one container list).
const pollEvery = 250 * time.Millisecond

// waitSignals end a wait for a slot: nothing has started yet, so acbox
// gives its ticket up, removes its run directory and exits 128+signal.
var waitSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP}

// Interrupted is a launch given up on a signal before anything started
// (while it waited for an admission slot).
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string {
	return fmt.Sprintf("%v while waiting for a sandbox slot: gave up; nothing was started", e.Signal)
}

// ExitStatus is 128 + the signal's number, as a shell reports a command
// the signal ended.
func (e *Interrupted) ExitStatus() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(unix.SIGINT)
}

// admitWaiting queues for a slot (see registry's admission queue) for at
// most wait: first come, first served across the user's acbox processes.
// It says once on errw that it waits, and why. A signal or ctx ends the
// wait; the ticket is given up on every way out.
func (l *Launcher) admitWaiting(ctx context.Context, wait time.Duration, b backend.Backend, e registry.Entry, c registry.Cap, errw io.Writer) error {
	t, err := l.Registry.Enqueue(e.ID, time.Now().Add(wait))
	if err != nil {
		return err
	}
	defer t.Leave()
	sig := make(chan os.Signal, 1)
	catch(sig, waitSignals) // signals_prime.go: PrimeSignals leaves these to the wait
	uncaught := sync.OnceFunc(func() { uncatch(sig, waitSignals) })
	defer uncaught()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	said := false
	for {
		foreign, err := l.live(ctx, b)
		if err != nil {
			return err
		}
		q, reaped, err := l.Registry.TryAdmit(e, c, foreign, t)
		l.cleanAfter(ctx, reaped)
		if err != nil {
			return err
		}
		if q.Admitted {
			uncaught()
			return l.keepSlot(e.ID, sig)
		}
		if !said {
			fmt.Fprintf(errw, "acbox: waiting up to %v for a sandbox slot: %s (Ctrl-C gives up)\n", wait, waitingFor(q, c))
			said = true
		}
		select {
		case <-time.After(pollEvery):
		case <-deadline.C:
			return fmt.Errorf("waited %v (--wait) and no slot came free: %w", wait, registry.Refusal(q, c))
		case s := <-sig:
			return &Interrupted{Signal: s}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// keepSlot ends a wait that got its slot, unless a signal came while the
// wait looked (sig holds all the wait caught, its catch ended): then the
// launch gives up as during the wait, and the slot's entry is removed.
// Returning admitted left such a signal unread, and the member ran.
func (l *Launcher) keepSlot(id string, sig <-chan os.Signal) error {
	select {
	case s := <-sig:
		l.Registry.Remove(id)
		return &Interrupted{Signal: s}
	default:
		return nil
	}
}

// waitingFor is the one line's reason: what fills the slots, who is ahead.
func waitingFor(q registry.Queue, c registry.Cap) string {
	s := fmt.Sprintf("%d of your sandboxes run", q.Running)
	if q.Foreign > 0 {
		s += fmt.Sprintf(" and %d other acbox containers on the docker daemon", q.Foreign)
	}
	s += fmt.Sprintf(", the cap is %d", c.Max)
	if q.Ahead > 0 {
		s += fmt.Sprintf(", %d ahead in the queue", q.Ahead)
	}
	return s
}
