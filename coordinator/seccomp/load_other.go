//go:build !linux

package seccomp

import "fmt"

// LoadThread is only possible on Linux.
func (p *Program) LoadThread() error {
	return fmt.Errorf("%w: seccomp exists only on Linux", ErrUnsupported)
}

// LoadListener is only possible on Linux.
func (p *Program) LoadListener() (int, error) {
	return -1, fmt.Errorf("%w: seccomp exists only on Linux", ErrUnsupported)
}
