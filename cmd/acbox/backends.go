package main

import (
	"os"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

// backends are the backends of this build, one line each, in the order
// status and doctor print them; the launcher picks among them by the
// plan's backend name.
func backends() []backend.Backend {
	return []backend.Backend{
		nsjail.Backend{},
		docker.Backend{},
	}
}

// newLauncher wires the launcher of this process: the host, its
// registry, the backends, the egress proxy, the events and the checks
// after the run.
func newLauncher(h policy.Host, events *coordinator.Events) (*coordinator.Launcher, error) {
	reg, err := registry.OpenRegistry(h.StateDir)
	if err != nil {
		return nil, err
	}
	return &coordinator.Launcher{Host: h, Registry: reg, Backends: backends(), Proxies: coordinator.EgressProxies{},
		Events: events, Checks: coordinator.GuardChecks{}}, nil
}

// hostLauncher is the launcher for ps, stop and gc: this user's registry
// and the backends, nothing to launch.
func hostLauncher() (*coordinator.Launcher, error) {
	h, err := policy.HostFromEnv()
	if err != nil {
		return nil, err
	}
	return newLauncher(h, nil)
}

// stdio are this process's standard streams, which a member inherits.
func stdio(in *os.File) coordinator.Stdio {
	return coordinator.Stdio{In: in, Out: os.Stdout, Err: os.Stderr}
}

// hostBackends are the backends `acbox status` and `acbox doctor` ask.
func hostBackends() []backend.Backend { return backends() }
