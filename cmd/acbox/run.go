package main

import (
	"encoding/json"
	"fmt"
	"os"

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

// Run resolves the plan, launches it and passes the member's status on.
// Inside a delegating sandbox it asks the broker outside instead.
func (c *RunCmd) Run(s *Streams) error {
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	if os.Getenv("ACBOX_SOCKET") == policy.DelegateSocket {
		spec, err := c.specOnly(s.In)
		if err != nil {
			return err
		}
		spec.Delegate = spec.Delegate || c.Delegate
		if err := policy.CheckNoNUL(spec); err != nil {
			return err
		}
		return runNested(policy.DelegateSocket, spec, events, s, c.Report)
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
	var check func(*policy.Plan) error
	if prof != nil {
		check = prof.Check
	}
	// The write grants are checked after every run (launch.go's afterRun;
	// scan.go): set-id files and devices that appeared are named on
	// standard error, set-id bits cleared. --report adds the whole scan.
	r, err := runSpec(spec, h, events, stdio{s.In, os.Stdout, os.Stderr}, check, c.Report != "")
	if r != nil && r.Outcome != nil {
		if werr := writeReport(c.Report, r.Report, r.Scan); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	return exitError{code: r.Code}
}

func openEvents(fd int) (*policy.Events, error) {
	if fd < 0 {
		return nil, nil
	}
	if fd <= 2 {
		return nil, fmt.Errorf("%w: --status-fd %d: use a descriptor above 2 so the member's stdio stays its own", policy.ErrInvalid, fd)
	}
	f := os.NewFile(uintptr(fd), "status")
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: --status-fd %d is not open: %v", policy.ErrInvalid, fd, err)
	}
	return policy.NewEvents(f), nil
}

// writeReport writes the report, with the exit scan when there is one.
func writeReport(path string, r *policy.Report, scan *exitscan.ExitScan) error {
	if path == "" || r == nil {
		return nil
	}
	b, _ := json.MarshalIndent(struct {
		*policy.Report
		ExitScan *exitscan.ExitScan `json:"exit_scan,omitempty"`
	}{r, scan}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
