package coordinator

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// liveWait bounds a backend's answer to "which sandboxes are live"
// (the docker daemon's container list) and its cleanup of leftovers.
const liveWait = 10 * time.Second

// admit records the sandbox in the host registry under the admission cap
// (counted across every acbox process of the user, this sandbox included,
// under the registry lock, plus the backend's live sandboxes the registry
// does not know: the docker daemon is shared, the registry is per user)
// and returns the release that removes the entry, and the entry (which
// started rewrites with pid 1's identity). Entries of dead owners
// are reaped on the way, with what their backends left. With plan.Wait it
// queues for a slot (admitWaiting), saying so on errw.
func (l *Launcher) admit(ctx context.Context, plan *policy.Plan, b backend.Backend, id string, errw io.Writer) (func(), registry.Entry, error) {
	if l.Registry == nil {
		return nil, registry.Entry{}, fmt.Errorf("%w: admission: the launcher has no registry", policy.ErrCannotSandbox)
	}
	mem, err := policy.HostMemory()
	if err != nil {
		return nil, registry.Entry{}, err
	}
	c := registry.ComputeCap(mem, plan.Limits.Memory, l.Host.MaxSandboxes)
	e, err := registry.NewEntry(plan, id)
	if err != nil {
		return nil, e, err
	}
	if plan.Wait > 0 && c.Max > 0 {
		err = l.admitWaiting(ctx, plan.Wait, b, e, c, errw)
	} else {
		err = l.admitOnce(ctx, b, e, c)
	}
	if err != nil {
		return nil, e, err
	}
	return func() { l.Registry.Remove(id) }, e, nil
}

func (l *Launcher) admitOnce(ctx context.Context, b backend.Backend, e registry.Entry, c registry.Cap) error {
	foreign, err := l.live(ctx, b)
	if err != nil {
		return err
	}
	reaped, err := l.Registry.AdmitCounting(e, c, foreign)
	l.cleanAfter(ctx, reaped)
	return err
}

// live lists the backend's live sandboxes, which admission counts too.
func (l *Launcher) live(ctx context.Context, b backend.Backend) ([]string, error) {
	lctx, cancel := context.WithTimeout(ctx, liveWait)
	defer cancel()
	foreign, err := b.Live(lctx)
	if err != nil {
		return nil, fmt.Errorf("%w: admission: counting the host's live %s sandboxes: %w", policy.ErrCannotSandbox, b.Name(), err)
	}
	return foreign, nil
}

// cleanAfter asks the backend of each reaped sandbox to remove what it
// left outside the registry (the native backend's cgroups, the docker
// backend's containers), sparing every sandbox that was not reaped, and
// returns what was removed. A backend that cannot clean now (no daemon)
// is skipped: gc tries again.
func (l *Launcher) cleanAfter(ctx context.Context, dead []registry.Entry) []string {
	gone := map[string]bool{}
	var owners []string
	for _, e := range dead {
		gone[e.ID] = true
		if !slices.Contains(owners, e.Backend) {
			owners = append(owners, e.Backend)
		}
	}
	var out []string
	for _, name := range owners {
		b := l.Backend(name)
		if b == nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, liveWait)
		removed, _ := b.Cleanup(cctx, func(id string) bool { return !gone[id] })
		cancel()
		out = append(out, removed...)
	}
	return out
}
