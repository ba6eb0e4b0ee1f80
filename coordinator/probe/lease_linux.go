package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fcntl's lease and delegation commands (linux/fcntl.h). F_SETDELEG is
// newer than x/sys/unix and than Linux 6.18, which answers EINVAL.
const (
	fSetlease = 1024
	fSetdeleg = 1024 + 16
)

// The ways a member could make a host process wait when it opens a file
// the member can see. A lease holder makes every other opener wait up to
// fs.lease-break-time (45 s) per open, and a root caller's member owns the
// host's /etc; fanotify permission events would make every open wait for
// the member's answer. Locks (only lockers wait) and FIFOs in write grants
// (only their readers) are documented in docs/security.md.
func leaseProbes() []Probe {
	return []Probe{
		{ID: "kernel.file-lease", Category: Kernel, Source: "attack repro-4/5/6 (2026-12-02)",
			Expect: "fcntl F_SETLEASE (read and write leases) and F_SETDELEG fail with EACCES on a read-granted and a write-granted file the member owns",
			Run:    fileLease},
		sys("kernel.fanotify-permission", "fanotify_init for permission events (FAN_CLASS_CONTENT, FAN_CLASS_PRE_CONTENT) fails with EPERM: no CAP_SYS_ADMIN",
			"attack report F3 (2026-12-02); fanotify(7)", fanotifyPermission, unix.EPERM),
	}
}

func fileLease(e *Env) Outcome {
	if e.ReadGrant == "" || e.Fixture == "" {
		return skipf("the runner named no read grant or fixture directory")
	}
	mine := filepath.Join(e.Fixture, "lease")
	if err := os.WriteFile(mine, []byte("lease"), 0o644); err != nil {
		return errorf("cannot make a file in the write grant: %v", err)
	}
	defer os.Remove(mine)
	read := filepath.Join(e.ReadGrant, "file")
	deleg := [2]uint32{0, unix.F_RDLCK} // struct delegation: d_flags, d_type
	return worst(
		expectErrno("read lease on "+read, setLease(read, fSetlease, unix.F_RDLCK), unix.EACCES),
		expectErrno("write lease on "+read, setLease(read, fSetlease, unix.F_WRLCK), unix.EACCES),
		expectErrno("write lease on "+mine, setLease(mine, fSetlease, unix.F_WRLCK), unix.EACCES),
		expectErrno("delegation on "+read, setLease(read, fSetdeleg, uintptr(unsafe.Pointer(&deleg))), unix.EACCES))
}

// setLease opens path read-only and makes fcntl(fd, cmd, arg) on it. A
// lease the kernel granted is dropped at once, with the descriptor, so the
// probe never holds up an opener outside.
func setLease(path string, cmd, arg uintptr) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(fd)
	if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), cmd, arg); e != 0 {
		return e
	}
	return nil
}

// fanotifyPermission asks for the two classes that make openers wait for
// the listener's verdict; the first error that is not EPERM is returned.
// A group is closed at once if one is ever granted.
func fanotifyPermission(*Env) error {
	var last error
	for _, class := range []uint{unix.FAN_CLASS_CONTENT, unix.FAN_CLASS_PRE_CONTENT} {
		fd, err := unix.FanotifyInit(class|unix.FAN_CLOEXEC, unix.O_RDONLY)
		if err == nil {
			unix.Close(fd)
			return fmt.Errorf("fanotify_init(%#x) succeeded", class)
		}
		if errnoOf(err) != unix.EPERM {
			return err
		}
		last = err
	}
	return last
}
