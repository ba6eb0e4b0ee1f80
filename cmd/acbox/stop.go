package main

import (
	"context"
	"time"
)

// StopCmd stops one sandbox and every process in it: SIGTERM to the acbox
// process that owns it, which passes it on to the member; after the grace
// period SIGKILL of the owner, whose death kills the sandbox's pid 1
// (Pdeathsig) and with it the whole pid namespace, the same end as a SIGKILL
// of acbox itself. Only sandboxes of this user's registry, owned by a
// process of this user, can be stopped.
type StopCmd struct {
	ID    string        `arg:"" help:"Sandbox id (see acbox ps)."`
	Grace time.Duration `default:"5s" help:"Time between SIGTERM and SIGKILL."`
}

// Run stops the sandbox and prints how.
func (c *StopCmd) Run(s *Streams) error {
	l, err := hostLauncher()
	if err != nil {
		return err
	}
	return l.Stop(context.Background(), c.ID, c.Grace, s.Out)
}
