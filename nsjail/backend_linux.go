package nsjail

import "github.com/acbox/acbox/coordinator"

// Backend is the native backend behind coordinator.Backend.
type Backend struct{}

// Name implements coordinator.Backend.
func (Backend) Name() string { return "native" }

// Launch implements coordinator.Backend.
func (Backend) Launch(p *coordinator.Plan, io coordinator.LaunchIO) (*coordinator.Outcome, error) {
	o := Options{ID: io.ID, Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr, ProxySocket: io.ProxySocket}
	if io.OnReady != nil {
		o.OnReady = func(s Started) { io.OnReady(coordinator.Started{ID: s.ID, Pid: s.HelperPid, Report: s.Report}) }
	}
	r, err := Launch(p, o)
	if err != nil {
		return nil, err
	}
	return &coordinator.Outcome{Code: r.Code, Signal: r.Signal, Report: r.Report, Duration: r.Duration}, nil
}
