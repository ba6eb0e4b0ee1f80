//go:build !amd64

package seccomp

import (
	"fmt"
	"runtime"
)

// embedded: the filter is generated on and for x86_64 hosts only (it also
// covers their 32-bit entry points).
func embedded() (*Program, error) {
	return nil, fmt.Errorf("%w: the filter is built for x86_64 hosts and this acbox is built for %s; "+
		"use --backend docker", ErrUnsupported, runtime.GOARCH)
}
