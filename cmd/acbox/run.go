package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/nsjail"
)

// RunCmd runs a command in a sandbox and exits with its status.
type RunCmd struct {
	LaunchFlags
	StatusFd int    `default:"-1" placeholder:"N" help:"Write JSON events (started, egress, exited) to file descriptor N."`
	Report   string `placeholder:"FILE" help:"Write the enforcement report as JSON to FILE."`
}

// Run resolves the plan, launches it and passes the member's status on.
func (c *RunCmd) Run(s *Streams) error {
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	plan, host, err := c.resolve(s.In)
	if err != nil {
		return err
	}
	out, err := launch(plan, host, events, s)
	if err != nil {
		return err
	}
	if err := writeReport(c.Report, out.Report); err != nil {
		return err
	}
	return exitError{code: out.Code}
}

// launch runs one plan on its backend with this sandbox's proxy, and emits
// the started and exited events.
func launch(plan *coordinator.Plan, host coordinator.Host, events *coordinator.Events, s *Streams) (*coordinator.Outcome, error) {
	b, err := backendFor(plan.Backend)
	if err != nil {
		return nil, err
	}
	plan.Backend = b.Name()
	id := nsjail.NewID()
	release, err := admit(plan, host, id)
	if err != nil {
		return nil, err
	}
	defer release()
	proxy, err := startProxy(plan, id, host.StateDir, events)
	if err != nil {
		return nil, err
	}
	defer proxy.stop()
	out, err := b.Launch(plan, coordinator.LaunchIO{ID: id, Stdin: s.In, ProxySocket: proxy.socket(), OnReady: func(st coordinator.Started) {
		events.Emit(coordinator.Event{Event: "started", ID: st.ID, Backend: plan.Backend, Pid: st.Pid,
			Access: json.RawMessage(plan.Access(true)), Report: st.Report.Digest()})
	}})
	if err != nil {
		return nil, err
	}
	code := out.Code
	events.Emit(coordinator.Event{Event: "exited", ID: id, Code: &code, Signal: out.Signal, DurationMS: out.Duration.Milliseconds()})
	return out, nil
}

func openEvents(fd int) (*coordinator.Events, error) {
	if fd < 0 {
		return nil, nil
	}
	if fd <= 2 {
		return nil, fmt.Errorf("%w: --status-fd %d: use a descriptor above 2 so the member's stdio stays its own", coordinator.ErrInvalid, fd)
	}
	f := os.NewFile(uintptr(fd), "status")
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: --status-fd %d is not open: %v", coordinator.ErrInvalid, fd, err)
	}
	return coordinator.NewEvents(f), nil
}

func writeReport(path string, r *coordinator.Report) error {
	if path == "" || r == nil {
		return nil
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
