//go:build !linux

package sys

import "golang.org/x/sys/unix"

func Getrlimit(int, string) (unix.Rlimit, error) { return unix.Rlimit{}, ErrUnsupported }
func Setrlimit(int, string, unix.Rlimit) error   { return ErrUnsupported }
