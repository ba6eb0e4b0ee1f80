//go:build !linux

package landlock

import (
	"fmt"
	"syscall"
)

// ABI reports that Landlock exists only on Linux.
func ABI() (int, error) {
	return 0, fmt.Errorf("landlock: only available on Linux: %w", syscall.ENOSYS)
}

// RestrictThread fails: Landlock exists only on Linux. Best effort does not
// turn this into success, because nothing else in acbox runs here either.
func RestrictThread(r Rules, bestEffort bool) (Report, error) {
	_, err := ABI()
	return Report{}, err
}
