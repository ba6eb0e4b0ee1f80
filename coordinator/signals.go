package coordinator

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// heldSignals are the signals the backends forward to a sandbox, and
// SIGPIPE: while a launch runs and until the checks after it are done,
// none of them may end acbox with its default action. The backends
// catch them only while the sandbox runs (and pass them on); a Ctrl-C
// that arrived after that, say while the broker waited for a nested
// child, used to kill acbox before the git quarantine and the exit scan,
// leaving what the member planted for the user's next git command.
// SIGPIPE: Go dies of it on a write to a closed standard error, which is
// where the findings go. Only SIGKILL can skip the checks (a ceiling in
// the README).
var heldSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGPIPE}

type signalHold struct {
	ch    chan os.Signal
	stop  chan struct{}
	after atomic.Bool
}

// holdSignals catches heldSignals until release. Once ended is called (the
// sandbox is gone), each caught signal is answered on errw with what acbox
// is still doing. The signals are caught when it returns; with
// PrimeSignals they were caught already and this costs no round trip with
// the runtime's signal thread but SIGPIPE's.
func holdSignals(errw io.Writer) *signalHold {
	h := &signalHold{ch: make(chan os.Signal, 4), stop: make(chan struct{})}
	catch(h.ch, heldSignals) // signals_prime.go
	go func() {
		for {
			select {
			case s := <-h.ch:
				if h.after.Load() && s != unix.SIGPIPE {
					fmt.Fprintf(errw, "acbox: %v: the sandbox has ended; acbox exits once it has checked the write grants (git, set-id files)\n", s)
				}
			case <-h.stop:
				return
			}
		}
	}()
	return h
}

func (h *signalHold) ended() { h.after.Store(true) }

func (h *signalHold) release() {
	uncatch(h.ch, heldSignals)
	close(h.stop)
}
