package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// Reap removes the registry entries of dead owners, and what their
// backends left, and returns the entries removed (acbox ps and stop do
// this first).
func (l *Launcher) Reap(ctx context.Context) ([]registry.Entry, error) {
	dead, err := l.Registry.Reap()
	l.cleanAfter(ctx, dead)
	return dead, err
}

// GC removes what dead owners left and prints each item on out: registry
// entries, runtime directories with their sockets, then whatever each
// backend cleans (cgroups, containers) of sandboxes with no entry. A
// backend that cannot clean now (a docker daemon that does not answer) is
// named once, with why; a backend that is not installed says nothing.
func (l *Launcher) GC(ctx context.Context, out io.Writer) error {
	reg := l.Registry
	dead, err := reg.Reap()
	if err != nil {
		return err
	}
	for _, e := range dead {
		fmt.Fprintf(out, "removed sandbox %s (%s, owner %d is gone) and %s\n", e.ID, e.Backend, e.OwnerPid, reg.RunDir(e.ID))
	}
	removed := l.cleanAfter(ctx, dead)
	swept, err := reg.Sweep()
	for _, p := range append(removed, swept...) {
		fmt.Fprintf(out, "removed %s\n", p)
	}
	// What a backend makes for a sandbox comes after its entry is written,
	// so one whose id has no entry at all belongs to a dead sandbox.
	hasEntry := func(id string) bool {
		_, gerr := reg.Get(id)
		return !errors.Is(gerr, registry.ErrNoSandbox)
	}
	for _, b := range l.Backends {
		names, cerr := b.Cleanup(ctx, hasEntry)
		if cerr != nil {
			fmt.Fprintf(out, "%s: leftovers not checked: %s\n", b.Name(), strings.TrimPrefix(cerr.Error(), policy.ErrCannotSandbox.Error()+": "))
		}
		for _, n := range names {
			fmt.Fprintf(out, "removed %s\n", n)
		}
	}
	return err
}
