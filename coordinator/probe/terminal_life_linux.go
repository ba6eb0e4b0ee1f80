package probe

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// terminalKept: `acbox run --no-tty` with its input not a terminal and its
// output the user's terminal (here a pty of the host that is acbox's
// controlling terminal, as a shell's is). The member tries to read a line
// the user typed and changes the terminal's settings; afterwards the
// terminal must be as it was and the member must have read nothing, nor
// reopened the terminal through its /proc/self/fd (Landlock refuses it).
// The window size is not the member's to keep: acbox does not restore it
// (the user may resize while the member runs), so it is not changed here.
func (r *Runner) terminalKept() Line {
	const id = "life.terminal-kept"
	expect := "without --tty, a member handed the user's terminal as its output cannot read from it, not even through a reopen of /proc/self/fd, and what it changes (echo, Ctrl-C) is put back when acbox exits"
	src := "attack 2026-12-01 (repro-3); bubblewrap --new-session; ssh and script restore the terminal"
	if r.docker() {
		return life(id, expect, src, skipf("under docker the member's streams are the Engine API's relay, never the user's terminal"))
	}
	m, s, err := hostPty()
	if err != nil {
		return life(id, expect, src, skipf("no pty on the host: %v", err))
	}
	defer m.Close()
	before, err := termState(int(s.Fd()))
	if err != nil {
		s.Close()
		return life(id, expect, src, errorf("%v", err))
	}
	m.Write([]byte("typed\n")) // waits in the terminal's input queue
	result := filepath.Join(r.Fixture.Write, "terminal-kept")
	script := "stty -echo -isig <&2 2>/dev/null; " +
		"if head -c1 <&2 >/dev/null 2>&1; then echo read; else echo noread; fi >" + result + "; " +
		// fd 4 is the member's fd 2, so its stderr can go to the result.
		"(exec 3</proc/self/fd/4 && echo reopened && head -c1 <&3 >/dev/null && echo read) 4>&2 >>" + result + " 2>&1"
	c := exec.Command(r.Exe, append(r.runFlags(), "--write", r.Fixture.Write, "--", "sh", "-c", script)...)
	c.Stdout, c.Stderr = s, s
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	go io.Copy(io.Discard, m) // the output: ends with EIO once s is closed
	_, err = status(c, 60*time.Second)
	after, serr := termState(int(s.Fd()))
	s.Close()
	if err != nil || serr != nil {
		return life(id, expect, src, errorf("acbox run: %v; terminal: %v", err, serr))
	}
	got, _ := os.ReadFile(result)
	os.Remove(result)
	member := strings.Fields(string(got))
	switch {
	case len(member) == 0 || member[0] != "noread":
		return life(id, expect, src, failf("the member read the user's input from the terminal it was handed as its output (%q)", got))
	case strings.Contains(string(got), "reopened"):
		return life(id, expect, src, failf("the member reopened the terminal through /proc/self/fd (%q)", got))
	case after != before:
		return life(id, expect, src, failf("the terminal changed: before %s, after %s", before, after))
	}
	return life(id, expect, src, passf("terminal as before (%s); member: %q", after, strings.TrimSpace(string(got))))
}

// hostPty opens a pty pair in the host's devpts.
func hostPty() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	}
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, slave, nil
}

// termState is what the probe compares: local flags and window size.
func termState(fd int) (string, error) {
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return "", err
	}
	return "lflag " + strconv.FormatUint(uint64(tio.Lflag), 16) + ", " + strconv.Itoa(int(ws.Row)) + "x" + strconv.Itoa(int(ws.Col)), nil
}
