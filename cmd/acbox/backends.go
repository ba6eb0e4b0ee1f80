package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
)

// backends maps a plan's backend name to its implementation. "auto" picks
// native when this host can sandbox, else docker.
var backends = map[string]func() (backend.Backend, error){
	"native": func() (backend.Backend, error) { return nativeBackend{}, nil },
	"docker": func() (backend.Backend, error) { return docker.Backend{}, nil },
}

// hostBackends are the backends `acbox status` and `acbox doctor` ask, in
// the order they print them.
func hostBackends() []backend.Backend {
	return []backend.Backend{nativeBackend{}, docker.Backend{}}
}

func backendFor(name string) (backend.Backend, error) {
	if name == "auto" {
		if (nativeBackend{}).Available(context.Background()).Available {
			name = "native"
		} else {
			name = "docker"
		}
	}
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
