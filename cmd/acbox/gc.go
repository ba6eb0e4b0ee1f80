package main

import "context"

// GcCmd removes what dead owners left: registry entries, runtime
// directories with their sockets, and what each backend left (cgroups,
// containers).
type GcCmd struct{}

// Run prints each removed item on stdout.
func (c *GcCmd) Run(s *Streams) error {
	l, err := hostLauncher()
	if err != nil {
		return err
	}
	return l.GC(context.Background(), s.Out)
}
