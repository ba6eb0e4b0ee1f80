package nsjail

import (
	"context"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Backend is the native backend behind backend.Backend.
type Backend struct{}

// Name implements backend.Backend.
func (Backend) Name() string { return "native" }

// Launch implements backend.Backend.
func (Backend) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	o := Options{ID: io.ID, Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr, ProxySocket: io.ProxySocket}
	if io.OnReady != nil {
		o.OnReady = func(s Started) { io.OnReady(backend.Started{ID: s.ID, Pid: s.HelperPid, Report: s.Report}) }
	}
	r, err := Launch(p, o)
	if err != nil {
		return nil, err
	}
	return &backend.Outcome{Code: r.Code, Signal: r.Signal, Report: r.Report, Duration: r.Duration}, nil
}

// Available implements backend.Backend. (Interim: issue 12's backend work
// replaces it with the status probe that cmd/acbox runs today.)
func (Backend) Available(ctx context.Context) backend.Availability {
	return backend.Availability{Backend: "native", Available: true}
}

// Lacks implements backend.Backend: the native helper checks every control
// itself before the member runs, so nothing is known to be lacking ahead.
func (Backend) Lacks(p *policy.Plan) []string { return nil }

// Live implements backend.Backend: native sandboxes are all in the registry.
func (Backend) Live(ctx context.Context) ([]string, error) { return nil, nil }

// Cleanup implements backend.Backend: cgroups of sandboxes whose owner is gone.
func (Backend) Cleanup(ctx context.Context, live func(id string) bool) ([]string, error) {
	return SweepCgroups(live), nil
}
