package sys

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// NSID names a namespace: the device and inode of its nsfs file, stable
// for as long as the namespace lives.
type NSID struct{ Dev, Ino uint64 }

// maxPidNSDepth is the kernel's limit on nested pid namespaces (32), plus
// room: the walk up from a peer's namespace never needs more.
const maxPidNSDepth = 40

// PidNSOf returns the pid namespace of the live process pid. The pidfd is
// opened before the namespace is read and checked alive after it, so the
// answer is the namespace of the process the pidfd names; a pid that was
// reaped and reused before the pidfd was opened is not detected (the
// caller asks for its own child, not yet reaped, or a process it knows).
func PidNSOf(pid int) (NSID, error) {
	pidfd, err := PidfdOpen(pid)
	if err != nil {
		return NSID{}, err
	}
	defer unix.Close(pidfd)
	return pidNSThen(pid, pidfd)
}

// PidNSOfPidfd returns the pid namespace of pid, which pidfd was opened
// on before: the namespace is read, then the pidfd's process is checked
// not reaped, so the answer is that process's whatever became of pid
// meanwhile (an error if it was reaped).
func PidNSOfPidfd(pid, pidfd int) (NSID, error) {
	return pidNSThen(pid, pidfd)
}

// PeerInPidNS reports whether the process at the other end of the Unix
// socket fd, as it was when it connected, lies in pid namespace ns or in
// one below it (which only a process inside ns can create). The peer is
// named by SO_PEERPIDFD (Linux 6.5), else by a pidfd opened on
// SO_PEERCRED's pid (a peer that exits and whose pid is reused before that
// open is mistaken for the new process); a peer outside acbox's pid
// namespace (pid 0) is not in ns.
func PeerInPidNS(fd int, ns NSID) (bool, error) {
	var cred *unix.Ucred
	err := callErr("getsockopt SO_PEERCRED", func() (err error) {
		cred, err = unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		return err
	})
	if err != nil || cred.Pid <= 0 {
		return false, err
	}
	pidfd, err := peerPidfd(fd, int(cred.Pid))
	if err != nil {
		return false, err
	}
	defer unix.Close(pidfd)
	nsfd, err := openPidNS(int(cred.Pid), pidfd)
	if err != nil {
		return false, err
	}
	return nsWithin(nsfd, ns)
}

// peerPidfd is SO_PEERPIDFD where the kernel has it, else pidfd_open(pid).
func peerPidfd(fd, pid int) (int, error) {
	var pidfd int
	err := callErr("getsockopt SO_PEERPIDFD", func() (err error) {
		pidfd, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PEERPIDFD)
		return err
	})
	if errors.Is(err, unix.ENOPROTOOPT) || errors.Is(err, unix.EINVAL) {
		return PidfdOpen(pid)
	}
	return pidfd, err
}

// pidNSThen is the NSID of pid's pid namespace, read while pidfd's
// process is alive (see openPidNS).
func pidNSThen(pid, pidfd int) (NSID, error) {
	nsfd, err := openPidNS(pid, pidfd)
	if err != nil {
		return NSID{}, err
	}
	defer unix.Close(nsfd)
	return fdStat(nsfd)
}

// openPidNS opens /proc/PID/ns/pid and then checks that pidfd's process
// has not been reaped: until it is, PID is still its pid, so the
// namespace opened is its own. A zombie counts (its pid is still held).
func openPidNS(pid, pidfd int) (int, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/ns/pid"
	nsfd, err := pathErrFD("open", path, func() (int, error) { return unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return -1, err
	}
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil && !errors.Is(err, unix.EPERM) {
		unix.Close(nsfd)
		return -1, fmt.Errorf("process %d ended while its pid namespace was read: %w", pid, err)
	}
	return nsfd, nil
}

// nsWithin walks from the pid namespace nsfd up through its parents
// (NS_GET_PARENT) looking for ns; it closes nsfd. EPERM at the top (the
// parent lies outside acbox's own namespace) ends the walk: not within.
func nsWithin(nsfd int, ns NSID) (bool, error) {
	for range maxPidNSDepth {
		id, err := fdStat(nsfd)
		if err != nil || id == ns {
			unix.Close(nsfd)
			return err == nil, err
		}
		parent, err := unix.IoctlRetInt(nsfd, unix.NS_GET_PARENT)
		unix.Close(nsfd)
		if errors.Is(err, unix.EPERM) {
			return false, nil
		}
		if err != nil {
			return false, os.NewSyscallError("ioctl NS_GET_PARENT", err)
		}
		nsfd = parent
	}
	unix.Close(nsfd)
	return false, nil
}

func fdStat(fd int) (NSID, error) {
	var st unix.Stat_t
	if err := callErr("fstat", func() error { return unix.Fstat(fd, &st) }); err != nil {
		return NSID{}, err
	}
	return NSID{Dev: st.Dev, Ino: st.Ino}, nil
}
