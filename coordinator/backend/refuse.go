package backend

import (
	"fmt"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// Refuse is the launch-time form of b.Lacks(p): nil when b can give
// everything p asks for, else a refusal (errors.Is policy.ErrRefused)
// whose text is the shortfalls, each with its remedy. Every backend's
// Launch calls it first, so a plan that lacks something never runs with
// less, whoever launches it.
func Refuse(b Backend, p *policy.Plan) error {
	if lacks := b.Lacks(p); len(lacks) > 0 {
		return lacksError(lacks)
	}
	return nil
}

// lacksError prints the shortfalls as Lacks names them (each already
// names the backend and the remedy) and is a policy refusal.
type lacksError []string

func (e lacksError) Error() string { return strings.Join(e, "; ") }

func (e lacksError) Unwrap() error { return policy.ErrRefused }

// OtherBackend is the shortfall every backend shares: a plan resolved for
// another backend, whose view and mounts were shaped for that one.
func OtherBackend(b Backend, p *policy.Plan) []string {
	if p.Backend == b.Name() {
		return nil
	}
	return []string{fmt.Sprintf("the plan was resolved for backend %q: resolve the spec with backend %q", p.Backend, b.Name())}
}
