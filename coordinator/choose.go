package coordinator

import (
	"context"
	"fmt"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Resolve is the plan a launch of spec would run: the backend chosen
// (see choose), the spec resolved for this host, and check's narrowing
// (nil: none). `acbox plan` prints it; Run launches it.
func (l *Launcher) Resolve(ctx context.Context, spec policy.Spec, check func(*policy.Plan) error) (*policy.Plan, error) {
	parent, err := l.withinParent(&spec) // within.go; before choose: the child inherits its backend
	if err != nil {
		return nil, err
	}
	spec.Backend = l.choose(ctx, spec.Backend)
	plan, err := policy.Resolve(spec, l.Host)
	if err == nil && parent != nil {
		err = narrowerThan(plan, parent, spec, l.Host)
	}
	if err == nil && check != nil {
		err = check(plan)
	}
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// choose turns the spec's backend "auto" into a name before the plan is
// resolved, so the plan carries the backend it runs on and is never
// changed after: "native" when that backend says this host can run it
// now, else "docker". Any other name is left for policy.Resolve to judge.
func (l *Launcher) choose(ctx context.Context, name string) string {
	if name != "auto" {
		return name
	}
	if b := l.Backend("native"); b != nil && b.Available(ctx).Available {
		return "native"
	}
	return "docker"
}

// Backend is the backend called name, nil when there is none.
func (l *Launcher) Backend(name string) backend.Backend {
	for _, b := range l.Backends {
		if b.Name() == name {
			return b
		}
	}
	return nil
}

// backendFor is the plan's backend, once it is known to give everything
// the plan asks for: a plan the backend lacks anything for is refused,
// each lack named (fail closed: never run with less than asked).
func (l *Launcher) backendFor(plan *policy.Plan) (backend.Backend, error) {
	b := l.Backend(plan.Backend)
	if b == nil {
		return nil, fmt.Errorf("%w: backend %q is not available in this build; use --backend native", policy.ErrCannotSandbox, plan.Backend)
	}
	if err := backend.Refuse(b, plan); err != nil {
		return nil, err
	}
	return b, nil
}
