package main

import "github.com/acbox/acbox/coordinator"

// admit records the sandbox in the host registry and applies admission;
// the returned func removes the entry. (The registry is added with the
// coordinator work; until then every launch is admitted.)
func admit(plan *coordinator.Plan, host coordinator.Host, id string) (func(), error) {
	return func() {}, nil
}
