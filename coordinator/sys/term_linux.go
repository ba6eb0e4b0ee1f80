package sys

import (
	"golang.org/x/sys/unix"
)

// Terminal is what a program handed a terminal can change of it and what
// outlasts the program: the termios settings (echo, signals, canonical
// mode), the line discipline and exclusive mode, and the device node's
// permission bits and owner, which fchmod and fchown change through the
// descriptor the member holds (Landlock does not cover metadata). A
// snapshot is taken before a member runs and put back after it
// (coordinator/termguard.go). The window size is not kept: the terminal
// emulator owns it and may resize while the member runs, and a wrong size
// is undone by the next resize.
type Terminal struct {
	tio     unix.Termios
	st      unix.Stat_t
	hasSt   bool
	ldisc   int
	excl    int
	hasLD   bool
	hasExcl bool
}

// SaveTerminal snapshots the terminal open at fd. For anything that is not
// a terminal it makes one call, TCGETS (what isatty does), which fails with
// ENOTTY: there is nothing to restore.
func SaveTerminal(fd int, name string) (*Terminal, error) {
	var t Terminal
	err := pathErr("ioctl(TCGETS)", name, func() error {
		tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err == nil {
			t.tio = *tio
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	t.hasSt = unix.Fstat(fd, &t.st) == nil
	if ld, err := unix.IoctlGetInt(fd, unix.TIOCGETD); err == nil {
		t.ldisc, t.hasLD = ld, true
	}
	if ex, err := unix.IoctlGetInt(fd, unix.TIOCGEXCL); err == nil {
		t.excl, t.hasExcl = ex, true
	}
	return &t, nil
}

// RestoreTerminal puts back what differs from the snapshot t, and only
// that: an unchanged terminal gets reads only, so a launch in the
// background is not stopped by SIGTTOU for a write it did not need. The
// line discipline goes first (a new one starts from the tty's termios),
// then termios, exclusive mode and the device node. Termios is put back
// only if no other process of the caller's job shares the terminal
// (SharedInJob): a pager in the same pipeline (`acbox run -- cmd | less`)
// sets raw mode while the member runs, and writing the snapshot back
// would undo it under the pager; the member's change and the pager's
// cannot be told apart, so termios is then left alone. changed says
// whether anything was put back; err is the first write that failed.
func RestoreTerminal(fd int, name string, t *Terminal) (changed bool, err error) {
	keep := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	if t.hasLD {
		if ld, e := unix.IoctlGetInt(fd, unix.TIOCGETD); e == nil && ld != t.ldisc {
			changed = true
			keep(pathErr("ioctl(TIOCSETD)", name, func() error { return unix.IoctlSetPointerInt(fd, unix.TIOCSETD, t.ldisc) }))
		}
	}
	if tio, e := unix.IoctlGetTermios(fd, unix.TCGETS); e == nil && *tio != t.tio && !(t.hasSt && SharedInJob(t.st.Rdev)) {
		changed = true
		keep(pathErr("ioctl(TCSETS)", name, func() error { return unix.IoctlSetTermios(fd, unix.TCSETS, &t.tio) }))
	}
	if t.hasExcl {
		if ex, e := unix.IoctlGetInt(fd, unix.TIOCGEXCL); e == nil && (ex != 0) != (t.excl != 0) {
			changed = true
			req := uint(unix.TIOCNXCL)
			if t.excl != 0 {
				req = unix.TIOCEXCL
			}
			keep(pathErr("ioctl(TIOCEXCL/TIOCNXCL)", name, func() error { return unix.IoctlSetInt(fd, req, 0) }))
		}
	}
	if t.hasSt {
		keepNode(fd, name, t, &changed, keep)
	}
	return changed, err
}

// ClearNonblock clears O_NONBLOCK on fd (a terminal opened with it so that
// open() does not wait for carrier on a serial line without CLOCAL).
func ClearNonblock(fd int, name string) error {
	return pathErr("fcntl(F_SETFL)", name, func() error {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err == nil {
			_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
		}
		return err
	})
}

// keepNode puts back the device node's permission bits and owner where
// the member changed them (a user's member can chmod its own terminal; a
// root caller's can also chown it).
func keepNode(fd int, name string, t *Terminal, changed *bool, keep func(error)) {
	var now unix.Stat_t
	if unix.Fstat(fd, &now) != nil || now.Rdev != t.st.Rdev {
		return
	}
	if now.Uid != t.st.Uid || now.Gid != t.st.Gid {
		*changed = true
		keep(pathErr("fchown", name, func() error { return unix.Fchown(fd, int(t.st.Uid), int(t.st.Gid)) }))
	}
	if now.Mode&0o7777 != t.st.Mode&0o7777 {
		*changed = true
		keep(pathErr("fchmod", name, func() error { return unix.Fchmod(fd, t.st.Mode&0o7777) }))
	}
}
