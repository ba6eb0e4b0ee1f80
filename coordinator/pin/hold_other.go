//go:build !linux

package pin

import (
	"errors"
	"fmt"

	"github.com/acbox/acbox/coordinator/policy"
)

// Hold needs Linux (O_PATH and /proc/self/fd).
func Hold(path string, flags int) (fd int, dev, ino uint64, err error) {
	return -1, 0, 0, fmt.Errorf("%w: holding %s by descriptor needs Linux: %w", policy.ErrCannotSandbox, path, errors.ErrUnsupported)
}
