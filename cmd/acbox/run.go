package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/acbox/acbox/coordinator"
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
// instead. Everything that can be checked before the member starts is:
// the status descriptor, the report file, the spec.
func (c *RunCmd) Run(s *Streams) error {
	events, err := openEvents(c.StatusFd)
	if err != nil {
		return err
	}
	s.status = events
	rep, err := openReport(c.Report)
	if err != nil {
		return err
	}
	defer rep.close()
	if os.Getenv("ACBOX_SOCKET") == policy.DelegateSocket {
		return c.nested(s, events, rep)
	}
	// The signals the launch holds are caught while it is planned, off its
	// path; until then, and after it, they act as they would uncaught.
	coordinator.PrimeSignals()
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
	req := coordinator.Request{Spec: spec, Stdio: stdio(s.In), Report: rep != nil, Check: noticeCheck(spec, h, prof, s.Err)}
	l, err := newLauncher(h, events)
	if err != nil {
		return err
	}
	// The write grants are checked after every run (checks.go): set-id
	// files and devices that appeared are named on standard error, set-id
	// bits cleared. --report adds the whole scan.
	r, err := l.Run(context.Background(), req)
	if rep != nil && r != nil && r.Outcome != nil {
		// The scan's JSON only for a report: encoding it cost a launch
		// without one about 0.5% of its CPU (reflection on first use).
		// A report name that does not hold the report fails the run (124),
		// after the exited event, as the other checks after the run do.
		if rerr := rep.write(s.Err, r.Report, scanJSON(r.Scan)); rerr != nil {
			err = errors.Join(reportErr(r.Report, rerr), err)
		}
	}
	if err != nil {
		return err
	}
	return exitError{code: r.Code}
}

// noticeCheck is the plan check of a launch: the profile's, then the
// notices about the plan (policy.Notices) on stderr, once it is accepted.
func noticeCheck(spec policy.Spec, h policy.Host, prof *policy.Profile, errw io.Writer) func(*policy.Plan) error {
	return func(p *policy.Plan) error {
		if prof != nil {
			if err := prof.Check(p); err != nil {
				return err
			}
		}
		for _, n := range policy.Notices(spec, p, h) {
			fmt.Fprintln(errw, "acbox:", n)
		}
		return nil
	}
}

// nested sends the launch to the broker of the delegating sandbox this
// process runs in.
func (c *RunCmd) nested(s *Streams, events *coordinator.Events, rep *reportFile) error {
	spec, err := c.specOnly(s.In)
	if err != nil {
		return err
	}
	spec.Delegate = spec.Delegate || c.Delegate
	if err := policy.CheckNoNUL(spec); err != nil {
		return err
	}
	var report func(*policy.Report, json.RawMessage) error
	var rerr error // kept until the child's status has come
	if rep != nil {
		report = func(r *policy.Report, scan json.RawMessage) error {
			if err := rep.write(s.Err, r, scan); err != nil {
				rerr = reportErr(r, err)
			}
			return nil
		}
	}
	code, err := coordinator.Nested(policy.DelegateSocket, spec, stdio(s.In), events, report)
	if err = errors.Join(rerr, err); err != nil {
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
	f, err := coordinator.StatusFile(fd)
	if err != nil {
		return nil, err
	}
	return coordinator.NewEvents(f), nil
}

// reportErr is a report that failed its check after the run, with the
// sandbox's id for the refused event.
func reportErr(r *policy.Report, err error) error {
	if r == nil {
		return err
	}
	return &coordinator.IDError{ID: r.ID, Err: err}
}
