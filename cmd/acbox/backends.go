package main

import (
	"fmt"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/nsjail"
)

// backends maps a plan's backend name to its implementation. "auto" picks
// native when this host can sandbox, else docker.
var backends = map[string]func() (coordinator.Backend, error){
	"native": func() (coordinator.Backend, error) { return nsjail.Backend{}, nil },
}

func backendFor(name string) (coordinator.Backend, error) {
	if name == "auto" {
		if st := nativeStatus(); st.Available {
			name = "native"
		} else {
			name = "docker"
		}
	}
	f, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("%w: backend %q is not available in this build; use --backend native", coordinator.ErrCannotSandbox, name)
	}
	return f()
}
