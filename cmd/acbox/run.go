package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
)

// RunCmd runs a command in a sandbox and exits with its status.
type RunCmd struct {
	LaunchFlags
	Delegate bool   `help:"Let the member launch narrower sandboxes (acbox is on its PATH, ACBOX_SOCKET names the broker)."`
	StatusFd int    `default:"-1" placeholder:"N" help:"Write JSON events (started, egress, exited) to file descriptor N."`
	Report   string `placeholder:"FILE" help:"Write the enforcement report as JSON to FILE."`
}

// Run builds the spec and has the launcher run it, passing the member's
// status on. Inside a delegating sandbox it asks the broker outside
// instead.
func (c *RunCmd) Run(s *Streams) error {
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	s.status = events
	if os.Getenv("ACBOX_SOCKET") == policy.DelegateSocket {
		return c.nested(s, events)
	}
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	spec, prof, err := c.spec(s.In, h)
	if err != nil {
		return err
	}
	spec.Delegate = spec.Delegate || c.Delegate
	if err := policy.CheckNoNUL(spec); err != nil {
		return err
	}
	req := coordinator.Request{Spec: spec, Stdio: stdio(s.In), Report: c.Report != ""}
	if prof != nil {
		req.Check = prof.Check
	}
	l, err := newLauncher(h, events)
	if err != nil {
		return err
	}
	// The write grants are checked after every run (checks.go): set-id
	// files and devices that appeared are named on standard error, set-id
	// bits cleared. --report adds the whole scan.
	r, err := l.Run(context.Background(), req)
	if r != nil && r.Outcome != nil {
		if werr := writeReport(c.Report, r.Report, scanJSON(r.Scan)); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	return exitError{code: r.Code}
}

// nested sends the launch to the broker of the delegating sandbox this
// process runs in.
func (c *RunCmd) nested(s *Streams, events *coordinator.Events) error {
	spec, err := c.specOnly(s.In)
	if err != nil {
		return err
	}
	spec.Delegate = spec.Delegate || c.Delegate
	if err := policy.CheckNoNUL(spec); err != nil {
		return err
	}
	var report func(*policy.Report, json.RawMessage) error
	if c.Report != "" {
		report = func(r *policy.Report, scan json.RawMessage) error { return writeReport(c.Report, r, scan) }
	}
	code, err := coordinator.Nested(policy.DelegateSocket, spec, stdio(s.In), events, report)
	if err != nil {
		return err
	}
	return exitError{code: code}
}

func openEvents(fd int) (*coordinator.Events, error) {
	if fd < 0 {
		return nil, nil
	}
	if fd <= 2 {
		return nil, fmt.Errorf("%w: --status-fd %d: use a descriptor above 2 so the member's stdio stays its own", policy.ErrInvalid, fd)
	}
	f := os.NewFile(uintptr(fd), "status")
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: --status-fd %d is not open: %w", policy.ErrInvalid, fd, err)
	}
	return coordinator.NewEvents(f), nil
}

// writeReport writes the report, with the exit scan when there is one.
// A nested launch passes on the broker's JSON of the scan as it came.
func writeReport(path string, r *policy.Report, scan json.RawMessage) error {
	if path == "" || r == nil {
		return nil
	}
	b, _ := json.MarshalIndent(struct {
		*policy.Report
		ExitScan json.RawMessage `json:"exit_scan,omitempty"`
	}{r, scan}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// scanJSON is the exit scan as the report's exit_scan (nil: none).
func scanJSON(es *exitscan.ExitScan) json.RawMessage {
	if es == nil {
		return nil
	}
	b, _ := json.Marshal(es)
	return b
}
