//go:build !linux || !cgo

package compile

import (
	"fmt"

	"github.com/acbox/acbox/nsjail/seccomp"
)

// Compile needs libseccomp, which this build does not have.
func Compile([]seccomp.Rule) ([]byte, error) {
	return nil, fmt.Errorf("%w: compiling the filter needs Linux, cgo and libseccomp-dev; "+
		"run go generate ./nsjail/seccomp/ on such a host", seccomp.ErrUnsupported)
}
