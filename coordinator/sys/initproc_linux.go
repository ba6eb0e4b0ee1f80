package sys

import "golang.org/x/sys/unix"

// Getrlimit reads the resource limit res (getrlimit(2)); name is its
// name, for the error.
func Getrlimit(res int, name string) (unix.Rlimit, error) {
	var r unix.Rlimit
	err := callErr("getrlimit "+name, func() error { return unix.Getrlimit(res, &r) })
	return r, err
}

// Setrlimit sets the resource limit res (setrlimit(2)); name is its name,
// for the error.
func Setrlimit(res int, name string, r unix.Rlimit) error {
	return callErr("setrlimit "+name, func() error { return unix.Setrlimit(res, &r) })
}
