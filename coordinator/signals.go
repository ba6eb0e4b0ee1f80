package coordinator

import (
	"fmt"
	"io"
	"os"

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
// the README). SIGWINCH ends nothing; it is here because the native
// backend passes it on, and the hold's channel is the backend's.
var heldSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH, unix.SIGPIPE}

// signalHold is one launch's catch of heldSignals. Until ended, what it
// catches is the backend's to pass on (backend.LaunchIO.Signals); after,
// it answers each signal with what acbox is still doing.
type signalHold struct {
	ch   chan os.Signal
	stop chan struct{}
	errw io.Writer
}

// holdSignals catches heldSignals until release. The signals are caught
// when it returns; with PrimeSignals they were caught already and this
// costs no round trip with the runtime's signal thread but SIGPIPE's.
// The channel is the backend's: the backend's own catch began only once
// its setup did, and a signal between the two (a few milliseconds while
// the native backend opened the grants) was taken here and lost, the
// member running to its end.
func holdSignals(errw io.Writer) *signalHold {
	// Room for what arrives before the backend reads: the runtime drops
	// a signal for a full channel.
	h := &signalHold{ch: make(chan os.Signal, 16), stop: make(chan struct{}), errw: errw}
	catch(h.ch, heldSignals) // signals_prime.go
	return h
}

// relay passes what from sends on as if the process had received it,
// until release. What from sent before waits for the hold.
func (h *signalHold) relay(from <-chan os.Signal) {
	if from == nil {
		return
	}
	go func() {
		for {
			select {
			case s := <-from:
				select {
				case h.ch <- s:
				default: // as the runtime's delivery to a full channel
				}
			case <-h.stop:
				return
			}
		}
	}()
}

// signals is what the hold has caught, for the backend to pass on; it
// has no other reader until ended.
func (h *signalHold) signals() <-chan os.Signal { return h.ch }

// ended is called once, when the backend has returned (the sandbox is
// gone): from then on each caught signal is answered on errw, also one
// the backend left unread (it failed before the member started).
func (h *signalHold) ended() { go h.answer() }

func (h *signalHold) answer() {
	for {
		select {
		case s := <-h.ch:
			if s != unix.SIGPIPE && s != unix.SIGWINCH {
				fmt.Fprintf(h.errw, "acbox: %v: the sandbox has ended; acbox exits once it has checked the write grants (git, set-id files)\n", s)
			}
		case <-h.stop:
			return
		}
	}
}

func (h *signalHold) release() {
	uncatch(h.ch, heldSignals)
	close(h.stop)
}
