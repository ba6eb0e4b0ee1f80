package nsjail

import (
	"context"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Backend is the native backend behind backend.Backend. The zero value is
// ready to use.
type Backend struct{}

// Name implements backend.Backend.
func (Backend) Name() string { return "native" }

// Launch implements backend.Backend (see Launch; LaunchIO.RunDir is not
// used: the native backend keeps no files of its own there).
func (b Backend) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	if err := backend.Refuse(b, p); err != nil {
		return nil, err
	}
	return Launch(p, Options{ID: io.ID, Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr,
		ProxySocket: io.ProxySocket, OnReady: io.OnReady, Signals: io.Signals})
}

// Lacks implements backend.Backend. The helper checks every control itself
// before the member's first instruction and refuses on a shortfall, so
// nothing more is known to be lacking ahead; a plan resolved for another
// backend (whose view and mounts are shaped for it) is refused.
func (b Backend) Lacks(p *policy.Plan) []string {
	return backend.OtherBackend(b, p)
}

// Live implements backend.Backend: every native sandbox of this user is in
// the host registry, which the launcher counts itself.
func (Backend) Live(ctx context.Context) ([]string, error) { return nil, nil }

// Cleanup implements backend.Backend: it removes the empty sandbox cgroups
// (acbox-<id>) beside this process's own whose id is not live, reading the
// one or few parent cgroups' entries and nothing below them. A live
// sandbox's cgroup is never removed (it is not empty); nil live counts
// every id as dead.
func (Backend) Cleanup(ctx context.Context, live func(id string) bool) ([]string, error) {
	if live == nil {
		live = func(string) bool { return false }
	}
	return SweepCgroups(live), nil
}

// Expect implements backend.Expecter (see the function Expect).
func (Backend) Expect(p *policy.Plan) *policy.Report { return Expect(p) }
