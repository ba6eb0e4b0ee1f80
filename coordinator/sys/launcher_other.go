//go:build !linux

package sys

import (
	"time"

	"golang.org/x/sys/unix"
)

// PidfdOpen is unsupported here.
func PidfdOpen(pid int) (int, error) { return -1, ErrUnsupported }

// PidfdSignal is unsupported here.
func PidfdSignal(pidfd int, sig unix.Signal) error { return ErrUnsupported }

// WaitReadable is unsupported here.
func WaitReadable(fd int, d time.Duration) (bool, error) { return false, ErrUnsupported }

// PeerPath is unsupported here.
func PeerPath(fd int) (string, error) { return "", ErrUnsupported }

// CloseOnExec is unsupported here.
func CloseOnExec(fd int) error { return ErrUnsupported }

// Writable is unsupported here.
func Writable(fd int) (bool, error) { return false, ErrUnsupported }
