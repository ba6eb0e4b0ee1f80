package coordinator

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Catching a signal costs a round trip with the Go runtime's
// signal-mask thread, per signal (signal.Notify, and signal.Stop for the
// last channel of a signal): the hold of a launch and the backend's
// forwarding made sixteen of them on the path of every `acbox run`, eight
// before the clone of pid 1 and eight after pid 1 was reaped.
// PrimeSignals moves seven of the first eight off that path and removes
// seven of the last: the held signals are caught from a goroutine while
// the launch is planned, and stay caught until the process exits. The
// catches of this package (a launch's hold, a wait for a slot) register
// with it rather than with the runtime, and it hands each signal to the
// catches in force or, with none, replays what the runtime would have
// done, so acbox ends on it exactly when it did before.

// primedSignals are heldSignals but SIGPIPE, whose default cannot be
// replayed from a channel: the runtime dies of it only on a write to
// standard output or error and ignores it otherwise, and a caught
// SIGPIPE does not say which.
var primedSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH}

// holders are the catches in force that the primer serves: each channel
// with the signals it wants. primed are the signals the primer catches
// and flush is its (both nil until PrimeSignals). Signal handling is the
// process's, so these are too.
var holders = struct {
	sync.Mutex
	served map[chan<- os.Signal][]os.Signal
	primed []os.Signal
	flush  chan chan struct{}
}{served: map[chan<- os.Signal][]os.Signal{}}

// catch delivers sigs to ch until uncatch: those the primer catches from
// the primer, the others (SIGPIPE; a signal ignored at the start; all
// without a primer) through signal.Notify. A signal the primer got before
// is replayed first (flushPrimer), not handed to ch; the flush also waits
// until the primer has caught its signals. Under the holders' lock: a
// replay holds it from its signal.Reset to the end, and a catch that took
// the replay's own kill left acbox asleep in replayDefault for 10 s and
// then exiting 128+signal instead of dying of it.
func catch(ch chan<- os.Signal, sigs []os.Signal) {
	flushPrimer()
	holders.Lock()
	defer holders.Unlock()
	var served, own []os.Signal
	for _, s := range sigs {
		if slices.Contains(holders.primed, s) {
			served = append(served, s)
		} else {
			own = append(own, s)
		}
	}
	if len(served) > 0 {
		holders.served[ch] = served
	}
	if len(own) > 0 {
		signal.Notify(ch, own...)
	}
}

// uncatch ends catch. What the primer got before is handed to ch first;
// from then on the primer replays what no other catch takes. The primer
// hands a signal over or replays it under the holders' lock, so each
// signal is taken by the catches or replayed, never both (a wait that gave
// up on a Ctrl-C was killed by its replay before it removed its ticket)
// and never neither (a count of catches dropped only after ch stopped
// receiving let the primer drop a signal as held that no catch took).
func uncatch(ch chan<- os.Signal, sigs []os.Signal) {
	flushPrimer()
	holders.Lock()
	delete(holders.served, ch)
	holders.Unlock()
	signal.Stop(ch)
	if afterStop != nil {
		afterStop()
	}
}

// afterStop is a test hook: it runs in uncatch once ch receives no more
// signals.
var afterStop func()

// PrimeSignals is for a process whose only signal handling is this
// package's (acbox run, before its launch): it starts catching
// primedSignals from a goroutine and returns at once. A caught signal
// that nothing holds gets the runtime's default (os/signal, "Default
// behavior"): SIGINT, SIGTERM and SIGHUP end the process, SIGQUIT with a
// stack dump, the others nothing. It is replayed by signal.Reset and
// kill, which would also cancel another package's signal.Notify for
// that signal. A signal ignored when the process started stays as it was
// until a hold catches it. Call it once.
func PrimeSignals() { primeSignals(nil) }

func primeSignals(caught chan<- struct{}) {
	// Read here, not in the goroutine: a catch's signal.Notify, should it
	// come first, clears a signal's ignored state.
	var sigs []os.Signal
	for _, s := range primedSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	flush := make(chan chan struct{})
	holders.Lock()
	holders.flush, holders.primed = flush, sigs
	holders.Unlock()
	go prime(sigs, caught, flush)
}

// prime catches sigs and hands each to the catches that want it (or
// replays it); caught is closed once they are caught (tests wait for
// it). A request on flush is answered once every signal already
// delivered has been seen.
func prime(sigs []os.Signal, caught chan<- struct{}, flush <-chan chan struct{}) {
	// Every primed signal of every catch passes here: room for a burst.
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, sigs...)
	if caught != nil {
		close(caught)
	}
	for {
		select {
		case s := <-ch:
			dispatch(s)
		case done := <-flush:
			drain(ch)
			close(done)
		}
	}
}

func drain(ch <-chan os.Signal) {
	for {
		select {
		case s := <-ch:
			dispatch(s)
		default:
			return
		}
	}
}

// dispatch hands s to every catch that wants it, as the runtime would (a
// full channel misses it), or, when none does, replays its default.
func dispatch(s os.Signal) {
	holders.Lock()
	taken := false
	for ch, sigs := range holders.served {
		if slices.Contains(sigs, s) {
			taken = true
			select {
			case ch <- s:
			default:
			}
		}
	}
	if taken {
		holders.Unlock()
		return
	}
	replayDefault(s)
}

// flushPrimer returns once the primer has seen every signal delivered so
// far; at once without a primer.
func flushPrimer() {
	holders.Lock()
	flush := holders.flush
	holders.Unlock()
	if flush != nil {
		done := make(chan struct{})
		flush <- done
		<-done
	}
}

// replayDefault ends the process on s as the runtime's default would,
// unless its default takes no action. It is called with the holders'
// lock and keeps it while the process ends: no catch (and so no launch)
// begins meanwhile.
func replayDefault(s os.Signal) {
	switch s {
	case unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT:
	default:
		holders.Unlock()
		return
	}
	signal.Reset(s)
	if self, err := os.FindProcess(os.Getpid()); err == nil {
		self.Signal(s)
	}
	// The runtime's handler ends the process; a SIGQUIT first writes
	// every goroutine's stack. Should it not, exit as a shell reports a
	// command that a signal ended.
	time.Sleep(10 * time.Second)
	os.Exit(128 + int(s.(syscall.Signal)))
}
