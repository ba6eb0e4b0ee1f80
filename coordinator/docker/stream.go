package docker

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// forwarded are the signals passed on to the container (to docker's init,
// which passes them to acbox's init, which passes them to the member).
var forwarded = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2}

// streams is the attached container's standard streams.
type streams struct {
	conn    *engine.Stream
	out     chan struct{} // closed when the output is drained
	restore func()
}

// attach connects the streams before start, so no early output is lost;
// the caller's stdin is copied only after release.
func (l *launch) attach(ctx context.Context) (*streams, error) {
	r, err := l.c.ContainerAttach(ctx, l.id)
	if err != nil {
		return nil, fmt.Errorf("%w: attach to container %s: %w", policy.ErrCannotSandbox, l.s.name(), err)
	}
	st := &streams{conn: r, out: make(chan struct{}), restore: func() {}}
	go func() {
		defer close(st.out)
		if l.s.plan.TTY {
			io.Copy(l.io.Stdout, r)
		} else {
			engine.Demux(l.io.Stdout, l.io.Stderr, r)
		}
	}()
	return st, nil
}

// supervise runs after release: it relays stdin (and the terminal), passes
// signals on and returns the member's exit once the container is gone.
func (l *launch) supervise(ctx context.Context, st *streams, rep *policy.Report) (*backend.Outcome, error) {
	defer st.conn.Close()
	if l.io.OnReady != nil {
		l.io.OnReady(l.started(rep))
	}
	if l.s.plan.TTY {
		st.restore = l.terminal(ctx)
	}
	defer st.restore()
	go func() {
		io.Copy(st.conn, l.io.Stdin)
		st.conn.CloseWrite()
	}()
	for {
		select {
		case sig := <-l.sigs:
			if slices.Contains(forwarded, sig) { // not SIGPIPE or SIGWINCH from the caller's catch
				l.c.ContainerKill(ctx, l.id, unixName(sig))
			}
		case r := <-l.exit:
			l.drain(st)
			if r.err != nil && r.code < 0 {
				return nil, fmt.Errorf("%w: waiting for container %s: %w", policy.ErrCannotSandbox, l.s.name(), r.err)
			}
			l.id = "" // removed by the daemon (AutoRemove)
			if err := l.execFailure(); err != nil {
				return nil, err
			}
			return &backend.Outcome{Code: r.code, Signal: signalOf(r.code), Report: rep, Duration: time.Since(l.begin)}, nil
		}
	}
}

// execFailure is the init's report that the member's command could not be
// executed. The container is gone, so its end of the gate connection is
// closed and the read ends at once; the bound is for a daemon that reports
// the exit early.
func (l *launch) execFailure() error {
	select {
	case err := <-l.execFail:
		return err
	case <-time.After(2 * time.Second):
	}
	return nil
}

// drain waits a little for output still in flight after the exit.
func (l *launch) drain(st *streams) {
	select {
	case <-st.out:
	case <-time.After(2 * time.Second):
	}
}

// initialSize gives the container's terminal the caller's size before the
// member is released, so its first look at the size is already right
// (HostConfig.ConsoleSize needs API 1.42; this engine may be older).
func (l *launch) initialSize(ctx context.Context) {
	fd := int(l.io.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return
	}
	if w, h, err := term.GetSize(fd); err == nil {
		l.c.ContainerResize(ctx, l.id, uint(h), uint(w))
	}
}

// terminal puts the caller's terminal in raw mode and keeps the
// container's terminal size equal to it; the returned func restores it.
func (l *launch) terminal(ctx context.Context) func() {
	fd := int(l.io.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return func() {}
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return func() {}
	}
	winch := make(chan os.Signal, 4)
	signal.Notify(winch, unix.SIGWINCH)
	resize := func() {
		if w, h, err := term.GetSize(fd); err == nil {
			l.c.ContainerResize(ctx, l.id, uint(h), uint(w))
		}
	}
	resize()
	go func() {
		for range winch {
			resize()
		}
	}()
	return func() {
		signal.Stop(winch)
		close(winch)
		term.Restore(fd, old)
	}
}

func unixName(sig os.Signal) string {
	return strings.TrimPrefix(unix.SignalName(sig.(unix.Signal)), "SIG")
}

// signalOf reads the signal from the member's exit status as the
// in-container init reports it (128+N for signal N; initproc). The
// container's status is all that crosses back, so a member that itself
// exits with 128+N reads as killed by N, as a shell would read it.
func signalOf(code int) int {
	if code > 128 && code <= 128+64 {
		return code - 128
	}
	return 0
}
