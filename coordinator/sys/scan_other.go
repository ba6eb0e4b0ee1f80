//go:build !linux

package sys

import "golang.org/x/sys/unix"

// Elsewhere the walk's calls do not exist (see scan_linux.go).

func Openat(int, string, int, uint32) (int, error)  { return -1, ErrUnsupported }
func Openat2(int, string, int, uint64) (int, error) { return -1, ErrUnsupported }
func Fstat(int, *unix.Stat_t) error                 { return ErrUnsupported }
func Fstatat(int, string, *unix.Stat_t, int) error  { return ErrUnsupported }
func Faccessat(int, string, uint32, int) error      { return ErrUnsupported }
func Readlinkat(int, string, []byte) (int, error)   { return 0, ErrUnsupported }
func FchmodPath(int, uint32) error                  { return ErrUnsupported }
