package coordinator

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

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
// handed as its output is put back by the cleanup stack, but for the
// window size, which the terminal emulator changes while it runs; and the
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
	unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 200}) // the user resizes
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
	if ws, _ := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); ws.Row != 50 || ws.Col != 200 {
		t.Errorf("window size %dx%d, want the resize 50x200 kept", ws.Row, ws.Col)
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

// TestGuardTerminalsLeavesPagerTermios: `acbox run -- cmd | less`. A
// second process of acbox's process group with the terminal as its
// controlling terminal (the pager) sets raw mode while the member runs:
// termios is left as the pager set it, while the line discipline,
// exclusive mode and node mode the member changed are still put back.
// In a child process that leads a session with the pty as its terminal.
func TestGuardTerminalsLeavesPagerTermios(t *testing.T) {
	if os.Getenv("ACBOX_TERM_PAGER_CHILD") != "" {
		pagerChild(t)
		return
	}
	_, slave := openPty(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuardTerminalsLeavesPagerTermios$", "-test.v")
	cmd.Env = append(os.Environ(), "ACBOX_TERM_PAGER_CHILD=1")
	cmd.ExtraFiles = []*os.File{slave}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func pagerChild(t *testing.T) {
	tty := os.NewFile(3, "/dev/pts/test")
	fd := int(tty.Fd())
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	var node unix.Stat_t
	unix.Fstat(fd, &node)
	var c Cleanup
	got := guardTerminals(&c, &policy.Plan{}, Stdio{In: null, Out: tty, Err: tty}, nil)
	pager := exec.Command("sh", "-c", "stty raw -echo && exec sleep 30")
	pager.Stdin = tty
	if err := pager.Start(); err != nil {
		t.Fatal(err)
	}
	defer pager.Wait()
	defer pager.Process.Kill()
	for i := 0; i < 500; i++ {
		if tio, _ := unix.IoctlGetTermios(fd, unix.TCGETS); tio.Lflag&unix.ICANON == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	raw, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	if raw.Lflag&(unix.ICANON|unix.ECHO) != 0 {
		t.Fatalf("the pager did not set raw mode: lflag %#x", raw.Lflag)
	}
	mfd := int(got.Out.Fd())
	unix.IoctlSetInt(mfd, unix.TIOCEXCL, 0)
	ldisc := unix.IoctlSetPointerInt(mfd, unix.TIOCSETD, 27) // N_NULL
	if err := unix.Fchmod(mfd, 0o666); err != nil {
		t.Fatalf("fchmod through the member's descriptor: %v", err)
	}
	c.Clean()
	if after, _ := unix.IoctlGetTermios(fd, unix.TCGETS); *after != *raw {
		t.Errorf("the pager's termios undone: lflag %#x, want %#x", after.Lflag, raw.Lflag)
	}
	if ex, _ := unix.IoctlGetInt(fd, unix.TIOCGEXCL); ex != 0 {
		t.Error("exclusive mode not cleared")
	}
	if ld, _ := unix.IoctlGetInt(fd, unix.TIOCGETD); ldisc == nil && ld != 0 {
		t.Errorf("line discipline %d, want N_TTY", ld)
	}
	var now unix.Stat_t
	unix.Fstat(fd, &now)
	if now.Mode != node.Mode {
		t.Errorf("device node mode %o, want %o", now.Mode, node.Mode)
	}
}
