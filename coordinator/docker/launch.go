package docker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// launch is one container's life, from create to removal.
type launch struct {
	b     Backend
	c     *engine.Client
	s     *setup
	gate  *startGate
	held  *held
	io    backend.LaunchIO
	id    string // container id once created
	begin time.Time
	exit  chan exitResult
	conn  net.Conn         // the gate connection, open while the member runs
	init  hostInit         // the container's pid 1 here, once verified (hostinit.go)
	sigs  <-chan os.Signal // the caller's (LaunchIO.Signals) or Launch's own
	// execFail gets the init's report of a member command it could not
	// execute, or nil (see session.execFailure).
	execFail <-chan error
}

type exitResult struct {
	code int
	err  error
}

func (l *launch) close() {
	if l.conn != nil {
		l.conn.Close()
	}
	l.held.close()
	l.gate.close()
	l.init.close()
	if l.id != "" {
		l.remove()
	}
}

// remove deletes the container; AutoRemove usually got there first.
func (l *launch) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := l.c.ContainerRemove(ctx, l.id, true)
	if err != nil && !errors.Is(err, engine.ErrNotFound) && !errors.Is(err, engine.ErrConflict) {
		l.b.warn(fmt.Sprintf("acbox: remove container %s: %v; remove it with `acbox gc` or docker rm -f %s", l.s.name(), err, l.s.name()))
	}
}

func (l *launch) run(ctx context.Context) (*backend.Outcome, error) {
	if err := l.create(ctx); err != nil {
		return nil, err
	}
	if _, err := l.inspect(ctx, false); err != nil {
		return nil, err
	}
	if l.b.Hooks.BeforeStart != nil {
		l.b.Hooks.BeforeStart()
	}
	st, err := l.attach(ctx)
	if err != nil {
		return nil, err
	}
	l.wait(ctx)
	if err := l.c.ContainerStart(ctx, l.id); err != nil {
		return nil, fmt.Errorf("%w: start container %s: %w", policy.ErrCannotSandbox, l.s.name(), err)
	}
	l.initialSize(ctx)
	rep, err := l.release(ctx)
	if err != nil {
		return nil, err
	}
	if l.b.Hooks.AfterRelease != nil {
		l.b.Hooks.AfterRelease()
	}
	return l.supervise(ctx, st, rep)
}

func (l *launch) create(ctx context.Context) error {
	cfg, hc := l.s.config()
	if l.b.Hooks.BeforeCreate != nil {
		l.b.Hooks.BeforeCreate(cfg, hc)
	}
	r, err := l.c.ContainerCreate(ctx, cfg, hc, l.s.name())
	if err != nil {
		return fmt.Errorf("%w: create container: %w", policy.ErrCannotSandbox, err)
	}
	l.id = r.ID
	return nil
}

// inspect refuses a container whose configuration, as the daemon reports
// it, differs from the plan in any checked way.
func (l *launch) inspect(ctx context.Context, started bool) (engine.InspectResponse, error) {
	in, err := l.c.ContainerInspect(ctx, l.id)
	if err != nil {
		return in, fmt.Errorf("%w: inspect container %s: %w", policy.ErrCannotSandbox, l.s.name(), err)
	}
	if p := l.s.problems(in, started); len(p) > 0 {
		return in, fmt.Errorf("%w: container %s differs from the plan, removed: %s", policy.ErrCannotSandbox, l.s.name(), strings.Join(p, "; "))
	}
	if started && (in.State == nil || !in.State.Running || in.State.Pid <= 0) {
		return in, fmt.Errorf("%w: container %s is not running", policy.ErrCannotSandbox, l.s.name())
	}
	return in, nil
}

// wait watches for the container's exit from before start, so no exit is
// missed; with AutoRemove the daemon reports it once the container is gone.
func (l *launch) wait(ctx context.Context) {
	l.exit = make(chan exitResult, 1)
	codes, errs := l.c.ContainerWait(ctx, l.id, engine.WaitConditionRemoved)
	go func() {
		select {
		case r := <-codes:
			var err error
			if r.Error != nil && r.Error.Message != "" {
				err = errors.New(r.Error.Message)
			}
			l.exit <- exitResult{code: int(r.StatusCode), err: err}
		case err := <-errs:
			l.exit <- exitResult{code: -1, err: err}
		}
	}()
}

// accept waits for the init at the gate, or for the container to end.
func (l *launch) accept() (net.Conn, error) {
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := l.gate.accept(time.Now().Add(StartTimeout))
		ch <- accepted{c, err}
	}()
	select {
	case a := <-ch:
		return a.c, a.err
	case r := <-l.exit:
		l.exit <- r
		l.gate.ln.Close()
		return nil, fmt.Errorf("%w: container %s ended with status %d before its init reached the start gate", policy.ErrCannotSandbox, l.s.name(), r.code)
	}
}
