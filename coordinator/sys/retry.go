package sys

import (
	"errors"
	"os"
	"syscall"
)

// ErrUnsupported is returned by every wrapper where the call does not exist.
var ErrUnsupported = errors.ErrUnsupported

// maxEINTR bounds the retries of one call.
const maxEINTR = 1 << 10

// retry runs f until it returns something other than EINTR.
func retry(f func() error) error {
	var err error
	for range maxEINTR {
		if err = f(); err != syscall.EINTR {
			return err
		}
	}
	return err
}

// pathErr runs f with EINTR retried and names op and path in its error.
func pathErr(op, path string, f func() error) error {
	if err := retry(f); err != nil {
		return &os.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// callErr runs f with EINTR retried and names op in its error.
func callErr(op string, f func() error) error {
	return os.NewSyscallError(op, retry(f))
}

// retryFD runs f, which returns a descriptor or count, like retry.
func retryFD(f func() (int, error)) (int, error) {
	var n int
	err := retry(func() (err error) { n, err = f(); return err })
	return n, err
}

// pathErrFD is pathErr for a call that returns a descriptor or count; it
// returns -1 with the error.
func pathErrFD(op, path string, f func() (int, error)) (int, error) {
	n, err := retryFD(f)
	if err != nil {
		return -1, &os.PathError{Op: op, Path: path, Err: err}
	}
	return n, nil
}
