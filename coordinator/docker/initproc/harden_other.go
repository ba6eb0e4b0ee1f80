//go:build !linux

package initproc

import (
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// The in-container init runs only in Linux containers; elsewhere it
// refuses before anything starts.

func undumpable() error             { return sys.ErrUnsupported }
func getData() (unix.Rlimit, error) { return unix.Rlimit{}, sys.ErrUnsupported }
func setData(cur, max uint64) error { return sys.ErrUnsupported }
