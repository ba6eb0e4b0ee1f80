package coordinator

import (
	"os"
	"os/signal"
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
// the launch is planned, and stay caught until the process exits, so the
// holds only count references. Between holds (before the first, after the
// last) the primer replays what the runtime would have done, so acbox
// ends on them exactly when it did before.

// primedSignals are heldSignals but SIGPIPE, plus SIGWINCH, which the
// backends pass on. SIGPIPE is left out because its default cannot be
// replayed from a channel: the runtime dies of it only on a write to
// standard output or error and ignores it otherwise, and a caught
// SIGPIPE does not say which.
var primedSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH}

// holders counts, per signal, the catches of this package in force (a
// launch's hold, a wait for an admission slot); flush is the primer's
// (nil until PrimeSignals). Signal handling is the process's, so these
// are too.
var holders = struct {
	sync.Mutex
	n     map[os.Signal]int
	flush chan chan struct{}
}{n: map[os.Signal]int{}}

// catch delivers sigs to ch until uncatch, and counts them held. Both
// under the holders' lock: a replay (which holds it from its
// signal.Reset to the end) must not have its kill taken by this catch's
// channel, which left acbox asleep in replayDefault for 10 s and then
// exiting 128+signal instead of dying of it. A signal the primer got
// before is replayed first (flushPrimer), not dropped as held.
func catch(ch chan<- os.Signal, sigs []os.Signal) {
	flushPrimer()
	holders.Lock()
	defer holders.Unlock()
	signal.Notify(ch, sigs...)
	for _, s := range sigs {
		holders.n[s]++
	}
}

// uncatch ends catch. The primer sees every signal delivered to ch before
// this (signal.Stop waits until they are delivered, to its channel too)
// while sigs are still counted held, so a signal the catch took is never
// replayed as well.
func uncatch(ch chan<- os.Signal, sigs []os.Signal) {
	signal.Stop(ch)
	flushPrimer()
	count(sigs, -1)
}

func count(sigs []os.Signal, d int) {
	holders.Lock()
	defer holders.Unlock()
	for _, s := range sigs {
		holders.n[s] += d
	}
}

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
	flush := make(chan chan struct{})
	holders.Lock()
	holders.flush = flush
	holders.Unlock()
	// Read here, not in the goroutine: a hold's signal.Notify, should it
	// come first, clears a signal's ignored state.
	var sigs []os.Signal
	for _, s := range primedSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	go prime(sigs, caught, flush)
}

// prime catches sigs and replays what nothing holds; caught is
// closed once they are caught (tests wait for it). A request on flush is
// answered once every signal already delivered has been seen.
func prime(sigs []os.Signal, caught chan<- struct{}, flush <-chan chan struct{}) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, sigs...)
	if caught != nil {
		close(caught)
	}
	for {
		select {
		case s := <-ch:
			replayDefault(s)
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
			replayDefault(s)
		default:
			return
		}
	}
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
// unless s is held or its default takes no action. It keeps the holders'
// lock: no hold (and so no launch) begins while the process ends.
func replayDefault(s os.Signal) {
	switch s {
	case unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT:
	default:
		return
	}
	holders.Lock()
	if holders.n[s] > 0 {
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
