package nsjail

import "github.com/acbox/acbox/coordinator/policy"

// Backend is the native backend behind policy.Backend.
type Backend struct{}

// Name implements policy.Backend.
func (Backend) Name() string { return "native" }

// Launch implements policy.Backend.
func (Backend) Launch(p *policy.Plan, io policy.LaunchIO) (*policy.Outcome, error) {
	o := Options{ID: io.ID, Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr, ProxySocket: io.ProxySocket}
	if io.OnReady != nil {
		o.OnReady = func(s Started) { io.OnReady(policy.Started{ID: s.ID, Pid: s.HelperPid, Report: s.Report}) }
	}
	r, err := Launch(p, o)
	if err != nil {
		return nil, err
	}
	return &policy.Outcome{Code: r.Code, Signal: r.Signal, Report: r.Report, Duration: r.Duration}, nil
}
