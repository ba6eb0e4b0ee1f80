//go:build integration

package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty returns a pty pair from the host's devpts, standing in for the
// user's terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := unix.Open(fmt.Sprintf("/dev/pts/%d", n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(m), "ptmx"), os.NewFile(uintptr(s), "pts")
}

// startOnPty starts `acbox run --tty -- sh -c script` in mode m with the
// pty's slave as its controlling terminal and standard streams (at most
// 30s).
func startOnPty(t *testing.T, m mode, slave *os.File, script string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := m.command(ctx, nil, "run", "--tty", "--", "sh", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestPrivateTerminal runs acbox on a terminal: the member gets a private
// pty of the sandbox's own devpts with the outer window size, TIOCSTI
// cannot inject anything, the exit status passes through, and the outer
// terminal's settings are restored.
func TestPrivateTerminal(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		master, slave := openPty(t)
		defer master.Close()
		unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 33, Col: 97})
		before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		// TIOCLINUX (0x541c) is tried plain and with high bits set in the
		// request, which the kernel drops and the filter's 32-bit mask sees.
		script := `tty; stty size; python3 -c 'import fcntl,termios; fcntl.ioctl(0, termios.TIOCSTI, b"Z")' 2>/dev/null; echo sti=$?
python3 -c '
import errno, fcntl
for req in (0x541C, 0x10000541C):
    try:
        fcntl.ioctl(0, req, b"\x06")
        print("tioclinux-allowed")
    except OSError as e:
        print("tioclinux-" + errno.errorcode[e.errno])
'
exit 5`
		cmd := startOnPty(t, m, slave, script)
		out := make(chan string, 1)
		go func() { b, _ := io.ReadAll(master); out <- string(b) }()
		werr := cmd.Wait()
		after, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		slave.Close()
		text := <-out
		if code := exitCode(cmd.ProcessState); code != 5 {
			t.Fatalf("exit %d (%v), want 5\n%s", code, werr, text)
		}
		if strings.Count(text, "tioclinux-EPERM") != 2 {
			t.Errorf("TIOCLINUX on the private pty: want EPERM twice (seccomp, plain and with high bits):\n%s", text)
		}
		for _, want := range []string{"/dev/pts/0", "33 97", "sti=1"} {
			if !strings.Contains(text, want) {
				t.Errorf("terminal output lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "Z") {
			t.Errorf("an injected byte reached a terminal:\n%q", text)
		}
		if before.Lflag != after.Lflag || before.Iflag != after.Iflag || before.Oflag != after.Oflag {
			t.Errorf("terminal settings not restored: lflag %#x -> %#x", before.Lflag, after.Lflag)
		}
	})
}

// ptyOutput collects what the terminal shows, so a test can wait for a
// word in it.
type ptyOutput struct {
	mu   chan struct{}
	text strings.Builder
}

func readPty(master *os.File) *ptyOutput {
	o := &ptyOutput{mu: make(chan struct{}, 1)}
	o.mu <- struct{}{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			<-o.mu
			o.text.Write(buf[:n])
			o.mu <- struct{}{}
			if err != nil {
				return
			}
		}
	}()
	return o
}

func (o *ptyOutput) String() string {
	<-o.mu
	defer func() { o.mu <- struct{}{} }()
	return o.text.String()
}

func (o *ptyOutput) waitFor(t *testing.T, word string) {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(o.String(), word) {
			return
		}
	}
	t.Fatalf("the terminal never showed %q:\n%s", word, o.String())
}

// TestTerminalResizeAndRestore: a window size change of the user's
// terminal while the member runs reaches the member's private pty (it
// gets SIGWINCH and sees the new size); and when acbox is ended by
// SIGTERM, the user's terminal settings are restored.
func TestTerminalResizeAndRestore(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		master, slave := openPty(t)
		defer master.Close()
		unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80})
		before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		script := `trap 'echo "resized to $(stty size)"' WINCH; echo "ready $(stty size)"; while :; do sleep 0.1; done`
		cmd := startOnPty(t, m, slave, script)
		out := readPty(master)
		out.waitFor(t, "ready 24 80")
		unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
		out.waitFor(t, "resized to 40 120")
		cmd.Process.Signal(unix.SIGTERM)
		cmd.Wait()
		after, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		slave.Close()
		if before.Lflag != after.Lflag || before.Iflag != after.Iflag || before.Oflag != after.Oflag {
			t.Errorf("terminal settings not restored after SIGTERM: lflag %#x -> %#x", before.Lflag, after.Lflag)
		}
	})
}

// TestNoStrayBytesAtExit: a terminal session shows the member's output and
// nothing after it: no NUL or other byte of acbox's own at exit (the NUL
// reported in issue 13 was script(1)'s end of input, which it writes into
// the terminal when its own stdin ends and which the member's pty echoes
// as ^@; acbox passes terminal input on verbatim, as ssh -t does).
func TestNoStrayBytesAtExit(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		master, slave := openPty(t)
		defer master.Close()
		cmd := startOnPty(t, m, slave, "printf 'END\\n'")
		out := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(master); out <- b }()
		cmd.Wait()
		slave.Close()
		b := <-out
		if code := exitCode(cmd.ProcessState); code != 0 || !bytes.HasSuffix(b, []byte("END\r\n")) || bytes.IndexByte(b, 0) >= 0 {
			t.Fatalf("exit %d; terminal got %q, want it to end with the member's END and hold no NUL", code, b)
		}
	})
}
