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
	if plan.Backend != "native" {
		return fmt.Errorf("%w: backend %q is not available in this build yet; use --backend native", coordinator.ErrCannotSandbox, plan.Backend)
	}
	id := nsjail.NewID()
	proxy, err := startProxy(plan, id, host.StateDir, events)
	if err != nil {
		return err
	}
	defer proxy.stop()
	res, err := nsjail.Launch(plan, nsjail.Options{ID: id, ProxySocket: proxy.socket(), OnReady: func(st nsjail.Started) {
		events.Emit(coordinator.Event{Event: "started", ID: st.ID, Backend: plan.Backend, Pid: st.HelperPid,
			Access: json.RawMessage(plan.Access(true)), Report: st.Report.Digest()})
	}})
	if err != nil {
		return err
	}
	if err := c.writeReport(res.Report); err != nil {
		return err
	}
	code := res.Code
	events.Emit(coordinator.Event{Event: "exited", ID: id, Code: &code, Signal: res.Signal, DurationMS: res.Duration.Milliseconds()})
	return exitError{code: res.Code}
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

func (c *RunCmd) writeReport(r *coordinator.Report) error {
	if c.Report == "" || r == nil {
		return nil
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return os.WriteFile(c.Report, append(b, '\n'), 0o600)
}
