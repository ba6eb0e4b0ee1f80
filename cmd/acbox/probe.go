package main

import (
	"github.com/acbox/acbox/coordinator/probe"
)

// ProbeCmd is the member program of `acbox selftest`: it runs the escape
// suite's probes inside the sandbox and prints one JSON line per probe.
// Hidden: it is started by selftest with the runner's fixture as flags.
type ProbeCmd struct {
	probe.Env
	probe.Modes
	All  bool     `help:"Include the destructive probes."`
	Only []string `sep:"none" placeholder:"ID" help:"Run only this probe (repeatable)."`
}

// Run runs a lifecycle mode when one is selected, else the probes; the
// status is 1 when any probe failed or erred.
func (c *ProbeCmd) Run(s *Streams) error {
	if code, ok := c.Modes.Run(); ok {
		return exitError{code: code}
	}
	if probe.Run(s.Out, probe.Selection{Env: c.Env, Destructive: c.All, Only: c.Only}) > 0 {
		return exitError{code: 1}
	}
	return nil
}
