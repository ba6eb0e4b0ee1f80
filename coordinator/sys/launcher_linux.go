package sys

import (
	"time"

	"golang.org/x/sys/unix"
)

// PidfdOpen opens a pidfd for pid (pidfd_open(2)).
func PidfdOpen(pid int) (int, error) {
	var fd int
	err := callErr("pidfd_open", func() (err error) { fd, err = unix.PidfdOpen(pid, 0); return err })
	return fd, err
}

// PidfdSignal sends sig to the process behind pidfd (pidfd_send_signal(2)).
func PidfdSignal(pidfd int, sig unix.Signal) error {
	return callErr("pidfd_send_signal", func() error { return unix.PidfdSendSignal(pidfd, sig, nil, 0) })
}

// WaitReadable waits up to d for fd to become readable (poll(2) POLLIN);
// for a pidfd, for its process to exit. A signal restarts the wait with
// what is left of d.
func WaitReadable(fd int, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	var n int
	err := callErr("poll", func() (err error) {
		ms := max(int(time.Until(deadline).Milliseconds()), 0)
		n, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
		return err
	})
	return err == nil && n > 0, err
}

// PeerPath is the path of the Unix socket fd is connected to
// (getpeername(2)); "" when fd is no Unix socket or is unnamed.
func PeerPath(fd int) (string, error) {
	var sa unix.Sockaddr
	err := callErr("getpeername", func() (err error) { sa, err = unix.Getpeername(fd); return err })
	if su, ok := sa.(*unix.SockaddrUnix); ok && err == nil {
		return su.Name, nil
	}
	return "", err
}

// CloseOnExec marks fd close-on-exec (fcntl(2) F_SETFD).
func CloseOnExec(fd int) error {
	return callErr("fcntl", func() error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		return err
	})
}

// Writable tells whether fd was opened for writing (fcntl(2) F_GETFL):
// a descriptor open read-only (or O_PATH) takes no write.
func Writable(fd int) (bool, error) {
	var fl int
	err := callErr("fcntl", func() (err error) { fl, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); return err })
	if err != nil || fl&unix.O_PATH != 0 {
		return false, err
	}
	acc := fl & unix.O_ACCMODE
	return acc == unix.O_WRONLY || acc == unix.O_RDWR, nil
}
