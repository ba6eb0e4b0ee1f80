package coordinator

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Without --tty, a standard stream that is a terminal is handed to the
// member as it is: the user's own terminal, not a relay. The member is in
// a session of its own (pid 1 forks it with setsid) and has no controlling
// terminal, so it cannot take this one (TIOCSCTTY: EPERM, it is another
// session's), change its foreground group (TIOCSPGRP: ENOTTY) or be
// stopped by it; seccomp refuses TIOCSTI and TIOCLINUX; TIOCCONS and
// vhangup need capabilities it has not. What it can do is change the
// terminal's settings, which would outlast it: termios (echo, Ctrl-C),
// window size, line discipline (N_NULL leaves a dead terminal), exclusive
// mode. And through a read-write descriptor it could read what the user
// types while it runs.
//
// guardTerminals closes both: it snapshots every such terminal before the
// launch and puts back what changed after it, on every way out that runs
// the cleanup stack (exit, a held signal, an error; not SIGKILL of acbox):
// line discipline, exclusive mode and the node's mode and owner always,
// termios only if no other process of acbox's job has the terminal (a
// pager such as `| less` sets raw mode on purpose; sys.SharedInJob), the
// window size never (the terminal emulator's, and resizes while it runs),
// and hands the member a write-only descriptor of a terminal that is its
// standard output or error but not its input (reopened through
// /proc/self/fd), so it cannot read from it. A stream that is not a
// terminal costs one ioctl (TCGETS, which is what isatty does).
// With --tty the member has a private pty and the relay restores the
// user's terminal (nsjail/relay_linux.go); nothing is done here.
func guardTerminals(c *Cleanup, plan *policy.Plan, std Stdio, warn io.Writer) Stdio {
	if plan.TTY {
		return std
	}
	inTerm := false
	for i, f := range []*os.File{std.In, std.Out, std.Err} {
		if f == nil {
			continue
		}
		t, err := sys.SaveTerminal(int(f.Fd()), f.Name())
		if err != nil {
			continue // not a terminal
		}
		c.Add(func() { restoreTerminal(f, t, warn) })
		switch i {
		case 0:
			inTerm = true
		case 1:
			std.Out = writeOnly(c, f, inTerm)
		case 2:
			std.Err = writeOnly(c, f, inTerm)
		}
	}
	return std
}

// writeOnly reopens the terminal f write-only, unless the member reads
// the terminal anyway (its input is one: --no-tty with a terminal on
// stdin). A reopen refused (a terminal of another user, passed down by
// sudo; exclusive mode) keeps f: the member could then read it, which
// docs/security.md names. The open is non-blocking, or a serial line
// without CLOCAL would wait for carrier; the member gets a blocking one.
func writeOnly(c *Cleanup, f *os.File, inTerm bool) *os.File {
	if inTerm {
		return f
	}
	fd, err := sys.Open("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.O_WRONLY|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return f
	}
	if sys.ClearNonblock(fd, f.Name()) != nil {
		sys.Close(fd)
		return f
	}
	w := os.NewFile(uintptr(fd), f.Name())
	c.Add(func() { w.Close() })
	return w
}

// restoreTerminal puts the snapshot back; a failure is named, with what
// the user can do.
func restoreTerminal(f *os.File, t *sys.Terminal, warn io.Writer) {
	if _, err := sys.RestoreTerminal(int(f.Fd()), f.Name(), t); err != nil && warn != nil {
		fmt.Fprintf(warn, "acbox: the member changed the terminal's settings and restoring them failed (%v); run `stty sane` or `reset`\n", err)
	}
}
