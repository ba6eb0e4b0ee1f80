package probe

import (
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The request with junk in the high 32 bits: the kernel reads an unsigned
// int, so this is TIOCSTI too (docs/kernel-facts.md 6).
const tiocstiHigh = 0x1_00005412

func terminalProbes() []Probe {
	src := "CVE-2017-5226 (bubblewrap TIOCSTI); CVE-2023-1523 (snapd TIOCLINUX)"
	return []Probe{
		{ID: "term.tiocsti-stdio", Category: Terminal, Source: src,
			Expect: "ioctl(TIOCSTI) on fds 0, 1, 2 fails with EPERM (seccomp, before any tty check)", Run: ioctlStdio(unix.TIOCSTI)},
		{ID: "term.tiocsti-high-bits", Category: Terminal, Source: src + "; docs/kernel-facts.md 6",
			Expect: "ioctl(0x1_00005412) on fds 0, 1, 2 fails with EPERM", Run: ioctlStdio(tiocstiHigh)},
		{ID: "term.tioclinux-stdio", Category: Terminal, Source: src,
			Expect: "ioctl(TIOCLINUX) on fds 0, 1, 2 fails with EPERM", Run: ioctlStdio(unix.TIOCLINUX)},
		{ID: "term.tiocsti-private-pty", Category: Terminal, Source: src,
			Expect: "TIOCSTI on a pty of the sandbox's own devpts fails with EPERM", Run: tiocstiPty},
		{ID: "term.no-ctty", Category: Terminal, Source: "docs/kernel-facts.md 7; bubblewrap --new-session",
			Expect: "opening /dev/tty fails with ENXIO: the member has no controlling terminal", Run: noCtty},
		{ID: "term.new-session", Category: Terminal, Source: "bubblewrap --new-session",
			Expect: "the member leads its own session", Run: newSession},
	}
}

// ioctlStdio issues the request with a pointer to a harmless byte. On a
// pipe the kernel would say ENOTTY, so EPERM is the sandbox's refusal.
func ioctlStdio(req uint64) func(*Env) Outcome {
	return ioctlEach(req, func(op string, err error) Outcome { return expectErrno(op, err, unix.EPERM) })
}

// ioctlEach issues req on fds 0, 1 and 2 and judges each result.
func ioctlEach(req uint64, judge func(op string, err error) Outcome) func(*Env) Outcome {
	return func(*Env) Outcome {
		var outs []Outcome
		c := byte(0)
		for fd := 0; fd <= 2; fd++ {
			_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&c)))
			outs = append(outs, judge("ioctl(fd "+strconv.Itoa(fd)+", "+hexStr(req)+")", errOrNil(e)))
		}
		return worst(outs...)
	}
}

func errOrNil(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func hexStr(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

func tiocstiPty(*Env) Outcome {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return skipf("no private pty: %v", err)
	}
	defer m.Close()
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		return errorf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		return errorf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return errorf("open pty slave: %v", err)
	}
	defer s.Close()
	c := byte('x')
	_, _, e := unix.Syscall(unix.SYS_IOCTL, s.Fd(), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	return expectErrno("TIOCSTI on /dev/pts/"+strconv.Itoa(n), errOrNil(e), unix.EPERM)
}

func noCtty(*Env) Outcome {
	err := openClose("/dev/tty", os.O_RDWR)
	return expectErrno("open /dev/tty", err, unix.ENXIO)
}

func newSession(*Env) Outcome {
	sid, err := unix.Getsid(0)
	if err != nil {
		return errorf("getsid: %v", err)
	}
	if sid != os.Getpid() {
		return infof("session %d led by another process (the probe is not the member itself)", sid)
	}
	return passf("sid %d = pid", sid)
}
