package nsjail

import (
	"io"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acbox/acbox/coordinator/sys"
)

// ttyRelay connects the user's terminal to the member's pty master: raw
// mode on the user's side (restored by stop on every exit path that runs
// Go code), bytes copied both ways, window size copied at start and on
// every SIGWINCH.
type ttyRelay struct {
	in, out *os.File
	master  *os.File
	restore *term.State
	winch   chan os.Signal
	done    chan struct{}
}

func startRelay(in, out, master *os.File) *ttyRelay {
	r := &ttyRelay{in: in, out: out, master: master, winch: make(chan os.Signal, 4), done: make(chan struct{})}
	if term.IsTerminal(int(in.Fd())) {
		r.restore, _ = term.MakeRaw(int(in.Fd()))
	}
	r.resize()
	signal.Notify(r.winch, unix.SIGWINCH)
	go r.watchSize()
	go io.Copy(master, in)
	go func() {
		io.Copy(out, master) // ends with EIO once the last slave closes
		close(r.done)
	}()
	return r
}

func (r *ttyRelay) watchSize() {
	for range r.winch {
		r.resize()
	}
}

func (r *ttyRelay) resize() {
	// Best effort: a terminal that will not say or take its size keeps
	// the old one.
	ws, err := sys.IoctlGetWinsize(int(r.in.Fd()), r.in.Name())
	if err == nil {
		sys.IoctlSetWinsize(int(r.master.Fd()), r.master.Name(), ws)
	}
}

// stop waits for the member's output to drain and restores the terminal.
func (r *ttyRelay) stop() {
	if r == nil {
		return
	}
	<-r.done
	signal.Stop(r.winch)
	close(r.winch)
	if r.restore != nil {
		term.Restore(int(r.in.Fd()), r.restore)
	}
	r.master.Close()
}
