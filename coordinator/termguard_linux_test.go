package coordinator

import (
	"errors"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// openPty opens a pty pair of the host's devpts for a test.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestGuardTerminalsRestores: what a member changes of a terminal it is
// handed as its output is put back by the cleanup stack, and the
// descriptor it gets cannot read.
func TestGuardTerminalsRestores(t *testing.T) {
	master, slave := openPty(t)
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	fd := int(slave.Fd())
	before, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100})
	var c Cleanup
	got := guardTerminals(&c, &policy.Plan{}, Stdio{In: null, Out: slave, Err: slave}, nil)
	if got.Out == slave || got.Err == slave || got.In != null {
		t.Fatalf("want write-only reopens of the terminal for out and err, in as it was: %+v", got)
	}
	master.Write([]byte("typed\n"))
	if _, err := got.Out.Read(make([]byte, 1)); !errors.Is(err, unix.EBADF) {
		t.Fatalf("read from the member's stdout: %v, want EBADF", err)
	}
	// What the member does, through its own descriptor.
	mfd := int(got.Out.Fd())
	tio := *before
	tio.Lflag &^= unix.ECHO | unix.ISIG
	unix.IoctlSetTermios(mfd, unix.TCSETS, &tio)
	unix.IoctlSetWinsize(mfd, unix.TIOCSWINSZ, &unix.Winsize{Row: 3, Col: 7})
	unix.IoctlSetInt(mfd, unix.TIOCEXCL, 0)
	ldisc := unix.IoctlSetPointerInt(mfd, unix.TIOCSETD, 27) // N_NULL, where the kernel has it
	var node unix.Stat_t
	unix.Fstat(fd, &node)
	if err := unix.Fchmod(mfd, 0o666); err != nil {
		t.Fatalf("fchmod through the member's descriptor: %v", err)
	}
	chowned := os.Getuid() == 0 && unix.Fchown(mfd, 65534, 65534) == nil
	c.Clean()
	after, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	if *after != *before {
		t.Errorf("termios not restored: lflag %#x, want %#x", after.Lflag, before.Lflag)
	}
	if ws, _ := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); ws.Row != 40 || ws.Col != 100 {
		t.Errorf("window size not restored: %dx%d", ws.Row, ws.Col)
	}
	if ex, _ := unix.IoctlGetInt(fd, unix.TIOCGEXCL); ex != 0 {
		t.Error("exclusive mode not cleared")
	}
	if ld, _ := unix.IoctlGetInt(fd, unix.TIOCGETD); ldisc == nil && ld != 0 {
		t.Errorf("line discipline %d, want N_TTY", ld)
	}
	var now unix.Stat_t
	unix.Fstat(fd, &now)
	if now.Mode != node.Mode || (chowned && (now.Uid != node.Uid || now.Gid != node.Gid)) {
		t.Errorf("device node mode %o owner %d:%d, want %o %d:%d", now.Mode, now.Uid, now.Gid, node.Mode, node.Uid, node.Gid)
	}
}

// TestGuardTerminalsLeavesTheRest: no terminal, a private pty (--tty), or
// a terminal on stdin (the member reads it by request) keep the streams.
func TestGuardTerminalsLeavesTheRest(t *testing.T) {
	_, slave := openPty(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cases := []struct {
		name  string
		plan  policy.Plan
		io    Stdio
		steps int
	}{
		{"pipes", policy.Plan{}, Stdio{In: r, Out: w, Err: w}, 0},
		{"tty mode", policy.Plan{TTY: true}, Stdio{In: slave, Out: slave, Err: slave}, 0},
		{"terminal input", policy.Plan{}, Stdio{In: slave, Out: slave, Err: w}, 2},
		{"nil streams", policy.Plan{}, Stdio{}, 0},
	}
	for _, tc := range cases {
		var c Cleanup
		got := guardTerminals(&c, &tc.plan, tc.io, nil)
		if got != tc.io || len(c.steps) != tc.steps {
			t.Errorf("%s: streams %+v, %d cleanup steps; want unchanged, %d", tc.name, got, len(c.steps), tc.steps)
		}
		c.Clean()
	}
}
