//go:build !linux || !cgo

package seccomp

import "fmt"

// Build needs libseccomp, which this build does not have.
func Build(Options) (*Program, error) {
	return nil, fmt.Errorf("%w: this acbox was built without cgo or not for Linux; "+
		"rebuild with CGO_ENABLED=1 and libseccomp-dev installed, or use --backend docker", ErrUnsupported)
}
