package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/nsjail"
)

// backends maps a plan's backend name to its implementation. "auto" picks
// native when this host can sandbox, else docker.
var backends = map[string]func() (backend.Backend, error){
	"native": func() (backend.Backend, error) { return nsjail.Backend{}, nil },
	"docker": func() (backend.Backend, error) { return docker.Backend{}, nil },
}

// chooseBackend replaces "auto" before the spec is resolved (policy.Resolve
// refuses it: the plan is shaped for its backend and never changed after).
func chooseBackend(name string) string {
	if name != "auto" {
		return name
	}
	if (nsjail.Backend{}).Available(context.Background()).Available {
		return "native"
	}
	return "docker"
}

func backendFor(name string) (backend.Backend, error) {
	f, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("%w: backend %q is not available in this build; use --backend native", policy.ErrCannotSandbox, name)
	}
	return f()
}

// The docker backend's orphans: containers whose owning acbox is gone. A
// host without a reachable daemon has none to remove.
func init() {
	gcHooks = append(gcHooks, func(w io.Writer) error {
		names, err := docker.RemoveOrphans(context.Background())
		if err != nil {
			fmt.Fprintf(w, "docker: skipped: %v\n", err)
			return nil
		}
		for _, n := range names {
			fmt.Fprintf(w, "removed container %s\n", n)
		}
		return nil
	})
}
