package sys

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp user-notification calls and the socket calls of host mode's
// listen guard (nsjail/listen_linux.go). Linux only: no stubs.

// SeccompNotif is struct seccomp_notif (80 bytes) with struct seccomp_data
// inlined.
type SeccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp (24 bytes).
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// SeccompNotifRecv waits for the next notification on the listener fd
// (SECCOMP_IOCTL_NOTIF_RECV). The kernel wants the struct zeroed.
func SeccompNotifRecv(fd int, req *SeccompNotif) error {
	return callErr("ioctl(SECCOMP_IOCTL_NOTIF_RECV)", func() error {
		*req = SeccompNotif{}
		return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(req))
	})
}

// SeccompNotifSend answers notification id with success (errno 0) or
// -errno (SECCOMP_IOCTL_NOTIF_SEND). ENOENT: the caller is gone or was
// interrupted.
func SeccompNotifSend(fd int, id uint64, errno unix.Errno) error {
	resp := seccompNotifResp{ID: id, Error: -int32(errno)}
	return callErr("ioctl(SECCOMP_IOCTL_NOTIF_SEND)", func() error {
		return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
	})
}

// SeccompNotifIDValid: the thread that made notification id still waits
// for its answer (SECCOMP_IOCTL_NOTIF_ID_VALID), so a pid read from the
// notification still names that thread.
func SeccompNotifIDValid(fd int, id uint64) error {
	return callErr("ioctl(SECCOMP_IOCTL_NOTIF_ID_VALID)", func() error {
		return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id))
	})
}

// SeccompActionAvail is seccomp(SECCOMP_GET_ACTION_AVAIL, 0, &action):
// nil when the kernel knows the filter return action.
func SeccompActionAvail(action uint32) error {
	return callErr("seccomp(SECCOMP_GET_ACTION_AVAIL)", func() error {
		_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
		return errnoErr(e)
	})
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	return errnoErr(e)
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// PidfdOpenFlags is pidfd_open(2) with flags (PIDFD_THREAD, Linux 6.9).
func PidfdOpenFlags(pid, flags int) (int, error) {
	fd, err := retryFD(func() (int, error) { return unix.PidfdOpen(pid, flags) })
	if err != nil {
		return -1, os.NewSyscallError("pidfd_open", err)
	}
	return fd, nil
}

// PidfdGetfd duplicates descriptor fd of the process pidfd names into this
// one, close-on-exec (pidfd_getfd(2), Linux 5.6).
func PidfdGetfd(pidfd, fd int) (int, error) {
	n, err := retryFD(func() (int, error) { return unix.PidfdGetfd(pidfd, fd, 0) })
	if err != nil {
		return -1, os.NewSyscallError("pidfd_getfd", err)
	}
	return n, nil
}

// Listen is listen(2).
func Listen(fd, backlog int) error {
	return callErr("listen", func() error { return unix.Listen(fd, backlog) })
}

// Getsockname is getsockname(2).
func Getsockname(fd int) (unix.Sockaddr, error) {
	var sa unix.Sockaddr
	err := callErr("getsockname", func() (err error) { sa, err = unix.Getsockname(fd); return err })
	return sa, err
}

// Shutdown is shutdown(2).
func Shutdown(fd, how int) error {
	return callErr("shutdown", func() error { return unix.Shutdown(fd, how) })
}
