package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

// admit records the sandbox in the host registry under the admission cap
// (counted across every acbox process of the user, this sandbox included,
// under the registry lock) and returns the release that removes the entry.
// Entries of dead owners are reaped on the way, with their cgroups.
func admit(plan *policy.Plan, host policy.Host, id string) (func(), error) {
	reg, err := registry.OpenRegistry(host.StateDir)
	if err != nil {
		return nil, err
	}
	c, err := admissionCap(plan, host)
	if err != nil {
		return nil, err
	}
	e, err := registry.NewEntry(plan, id)
	if err != nil {
		return nil, err
	}
	foreign, err := foreignSandboxes(plan)
	if err != nil {
		return nil, err
	}
	reaped, err := reg.AdmitCounting(e, c, foreign)
	cleanAfter(reaped)
	if err != nil {
		return nil, err
	}
	admitted.Store(id, reg)
	return func() {
		admitted.Delete(id)
		reg.Remove(id)
	}, nil
}

// foreignSandboxes: for a docker launch, every live acbox container on the
// host, whoever owns it (the daemon is shared; the registry is per user).
// A native launch does not ask the daemon: it would slow every launch and
// fail where there is none.
func foreignSandboxes(plan *policy.Plan) ([]string, error) {
	if plan.Backend != "docker" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := docker.LiveSandboxes(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: admission: counting the host's acbox containers: %v", policy.ErrCannotSandbox, err)
	}
	return ids, nil
}

// admissionCap: max_sandboxes from the config (read once, with the host),
// else computed from the host's memory and this sandbox's memory limit.
func admissionCap(plan *policy.Plan, host policy.Host) (registry.Cap, error) {
	mem, err := policy.HostMemory()
	if err != nil {
		return registry.Cap{}, err
	}
	return registry.ComputeCap(mem, plan.Limits.Memory, host.MaxSandboxes), nil
}

// cleanAfter removes what reaped sandboxes left outside the registry (the
// native backend's cgroups) and returns the removed paths.
func cleanAfter(dead []registry.Entry) []string {
	var out []string
	for _, e := range dead {
		if e.Backend == "native" {
			out = append(out, nsjail.RemoveCgroups(e.ID)...)
		}
	}
	return out
}

// admitted maps the ids this process admitted to their registry, so that
// the helper's pid can be added to the entry once the backend reports it.
var admitted sync.Map

// recordHelper adds the sandbox's host pid, once the backend reports it
// started, to the registry entry admit made.
func recordHelper(id string, pid int) {
	v, ok := admitted.Load(id)
	if !ok {
		return
	}
	start, err := registry.ProcStart(pid)
	if err != nil {
		return
	}
	v.(*registry.Registry).Update(id, func(e *registry.Entry) { e.HelperPid, e.HelperStart = pid, start })
}
