package docker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// A stop ends a sandbox by SIGKILL of its pid 1 where this process holds
// one (hostinit.go); otherwise through the Engine API, by container id,
// which needs no pid at all: the launch's own watch through
// Started.Kill, `acbox stop` (another process) through End.

// endWait bounds one kill through the Engine API.
const endWait = 10 * time.Second

// started is what OnReady is told: the container's pid 1 only where it
// was verified here (its pidfd with it), and the Engine API's kill.
func (l *launch) started(rep *policy.Report) backend.Started {
	return backend.Started{ID: l.s.id, Pid: l.init.pid, Pidfd: l.init.fd, Kill: l.killer(), Report: rep}
}

// killer is Started.Kill: SIGKILL of the container's pid 1 by the daemon.
func (l *launch) killer() func() error {
	c, id := l.c, l.id
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), endWait)
		defer cancel()
		return c.ContainerKill(ctx, id, "KILL")
	}
}

// End implements backend.Ender: it kills the running container of sandbox
// id that owner's acbox launched in this pid namespace, through the
// Engine API.
func (Backend) End(ctx context.Context, id string, owner backend.Owner) error {
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return endContainer(ctx, c, id, owner, self())
}

// endContainer finds the container by its labels (the sandbox id, and the
// owner's pid, start time and pid namespace, which must be me's) and
// kills it.
func endContainer(ctx context.Context, c *engine.Client, id string, o backend.Owner, me owner) error {
	ctx, cancel := context.WithTimeout(ctx, endWait)
	defer cancel()
	list, err := c.ContainerList(ctx, LabelOwnerPid, LabelID+"="+id)
	if err != nil {
		return fmt.Errorf("%w: list acbox containers: %w", policy.ErrCannotSandbox, err)
	}
	for _, ct := range list {
		l := ct.Labels
		if l[LabelID] != id || l[LabelOwnerPid] != strconv.Itoa(o.Pid) ||
			l[LabelOwnerStart] != strconv.FormatUint(o.Start, 10) || l[LabelOwnerPidNS] != me.pidns {
			continue
		}
		if err := c.ContainerKill(ctx, ct.ID, "KILL"); err != nil {
			return fmt.Errorf("%w: kill container %s: %w", policy.ErrCannotSandbox, firstName(ct.Names), err)
		}
		return nil
	}
	return fmt.Errorf("%w: no container of sandbox %s launched by acbox process %d", policy.ErrCannotSandbox, id, o.Pid)
}

var _ backend.Ender = Backend{}
