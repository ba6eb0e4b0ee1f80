//go:build !linux

package sys

import "golang.org/x/sys/unix"

// Open is unsupported here.
func Open(path string, flags int, mode uint32) (int, error) { return -1, ErrUnsupported }

// CloseRange is unsupported here.
func CloseRange(first, last uint, flags uint) error { return ErrUnsupported }
