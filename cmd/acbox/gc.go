package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

// gcHooks remove what other backends leave behind when their owner dies
// (the docker backend appends one for orphaned containers). Each runs once
// per `acbox gc`, after the registry is reaped.
var gcHooks []func(w io.Writer) error

// GcCmd removes what dead owners left: registry entries, runtime
// directories with their sockets, cgroups, and whatever the gc hooks clean.
type GcCmd struct{}

// Run prints each removed item on stdout.
func (c *GcCmd) Run(s *Streams) error {
	reg, err := openRegistry()
	if err != nil {
		return err
	}
	dead, err := reg.Reap()
	if err != nil {
		return err
	}
	for _, e := range dead {
		fmt.Fprintf(s.Out, "removed sandbox %s (%s, owner %d is gone) and %s\n", e.ID, e.Backend, e.OwnerPid, reg.RunDir(e.ID))
	}
	removed := cleanAfter(dead)
	swept, err := reg.Sweep()
	removed = append(removed, swept...)
	// A cgroup is made only after its entry is written, so one with no
	// entry at all belongs to a dead sandbox (and only an empty one can be
	// removed anyway).
	removed = append(removed, nsjail.SweepCgroups(func(id string) bool {
		_, gerr := reg.Get(id)
		return !errors.Is(gerr, registry.ErrNoSandbox)
	})...)
	for _, p := range removed {
		fmt.Fprintf(s.Out, "removed %s\n", p)
	}
	errs := []error{err}
	for _, h := range gcHooks {
		errs = append(errs, h(s.Out))
	}
	return errors.Join(errs...)
}
