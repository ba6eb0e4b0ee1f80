//go:build !linux

package sys

import "golang.org/x/sys/unix"

// Elsewhere the walk's calls do not exist (see scan_linux.go).

func Fstatat(int, string, *unix.Stat_t, int) error     { return ErrUnsupported }
func Faccessat(int, string, uint32, int) error         { return ErrUnsupported }
func FchmodPath(int, uint32) error                     { return ErrUnsupported }
func HasXattrAt(int, string, string) (bool, error)     { return false, ErrUnsupported }
func HasXattrPath(int, string) (bool, error)           { return false, ErrUnsupported }
func RemovexattrPath(int, string) error                { return ErrUnsupported }
func FchownPath(int, int, int) error                   { return ErrUnsupported }
func Getxattrat(int, string, int, string) (int, error) { return -1, ErrUnsupported }
