//go:build !linux || !cgo

package compile

import (
	"fmt"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// Compile needs libseccomp, which this build does not have.
func Compile([]seccomp.Rule) ([]byte, error) {
	return nil, fmt.Errorf("%w: compiling the filter needs Linux, cgo and libseccomp-dev; "+
		"run go generate ./coordinator/seccomp/ on such a host", seccomp.ErrUnsupported)
}
