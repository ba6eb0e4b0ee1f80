//go:build !linux

package seccomp

import "fmt"

// LoadThread is only possible on Linux.
func (p *Program) LoadThread() error {
	return fmt.Errorf("%w: seccomp exists only on Linux", ErrUnsupported)
}
