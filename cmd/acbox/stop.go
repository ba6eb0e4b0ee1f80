package main

import (
	"context"
	"time"
)

// StopCmd stops one sandbox and every process in it: SIGTERM to the acbox
// process that owns it, which passes it on to the member; after the grace
// period SIGKILL of the sandbox (its pid 1, or a docker container that
// records none through the Engine API), after which the owner runs its
// checks after the run and exits (coordinator's Launcher.Stop). Only
// sandboxes of this user's registry, owned by a process of this user, can
// be stopped.
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
