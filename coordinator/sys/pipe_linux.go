package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pipe2 makes a pipe (pipe2(2)); p[0] is the read end.
func Pipe2(p []int, flags int) error {
	return callErr("pipe2", func() error { return unix.Pipe2(p, flags) })
}

// SetPipeSize asks for a pipe buffer of size bytes (F_SETPIPE_SZ); the
// kernel may refuse or round it, which callers treat as a hint.
func SetPipeSize(fd, size int) error {
	return callErr("fcntl F_SETPIPE_SZ", func() error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, size)
		return err
	})
}

// Splice moves up to n bytes from rfd to wfd without copying through user
// space (splice(2)), retrying EINTR. EAGAIN comes back as an error that
// errors.Is(err, unix.EAGAIN) recognises, for the caller's poller.
func Splice(rfd, wfd, n int, flags int) (int64, error) {
	var m int64
	err := retry(func() (err error) {
		m, err = unix.Splice(rfd, nil, wfd, nil, n, flags)
		return err
	})
	if err != nil {
		return m, os.NewSyscallError("splice", err)
	}
	return m, nil
}
