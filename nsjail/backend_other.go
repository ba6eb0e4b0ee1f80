//go:build !linux

package nsjail

import (
	"context"
	"fmt"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Backend is the native backend behind backend.Backend. It needs Linux
// (user namespaces, Landlock, seccomp); elsewhere it reports itself
// unavailable and refuses every plan, so the launcher can offer the docker
// backend instead.
type Backend struct{}

const needsLinux = "the native backend needs Linux"

// Name implements backend.Backend.
func (Backend) Name() string { return "native" }

// Available implements backend.Backend: never, here.
func (b Backend) Available(ctx context.Context) backend.Availability {
	return backend.Availability{Backend: b.Name(), Why: needsLinux, Remedy: "use --backend docker"}
}

// Lacks implements backend.Backend: everything, here.
func (Backend) Lacks(p *policy.Plan) []string {
	return []string{needsLinux + "; use --backend docker"}
}

// Live implements backend.Backend: there are none here.
func (Backend) Live(ctx context.Context) ([]string, error) { return nil, nil }

// Cleanup implements backend.Backend: there is nothing to clean here.
func (Backend) Cleanup(ctx context.Context, live func(id string) bool) ([]string, error) {
	return nil, nil
}

// Launch implements backend.Backend: it refuses.
func (Backend) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	return nil, fmt.Errorf("%w: %s; use --backend docker", policy.ErrCannotSandbox, needsLinux)
}
