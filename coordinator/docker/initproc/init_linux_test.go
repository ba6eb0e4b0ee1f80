package initproc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestRunNoCommand: without a member command the init refuses before it
// touches anything (no gate asked, nothing started).
func TestRunNoCommand(t *testing.T) {
	for _, argv := range [][]string{nil, {}, {"--"}} {
		if _, err := Run(Config{Gate: "/nonexistent", Token: "t", Command: argv}); !errors.Is(err, policy.ErrInvalid) {
			t.Errorf("Run(%q): %v, want ErrInvalid", argv, err)
		}
	}
}

// TestRunMember: the member gets exactly the released environment, its
// status comes back (128+N for a signal; 127 not found), and RLIMIT_DATA
// applies to it alone.
func TestRunMember(t *testing.T) {
	for _, tc := range []struct {
		name   string
		argv   []string
		env    []string
		data   uint64
		code   int
		stdout string
	}{
		{"exit status", []string{"sh", "-c", "exit 7"}, []string{"PATH=/usr/bin:/bin"}, 0, 7, ""},
		{"released env only", []string{"sh", "-c", "echo \"$A|$HOME\""}, []string{"PATH=/usr/bin:/bin", "A=1"}, 0, 0, "1|\n"},
		{"signal", []string{"sh", "-c", "kill -TERM $$"}, []string{"PATH=/usr/bin:/bin"}, 0, 128 + 15, ""},
		{"not found", []string{"no-such-command-acbox"}, []string{"PATH=/nonexistent"}, 0, 127, ""},
		{"data limit", []string{"sh", "-c", "ulimit -d"}, []string{"PATH=/usr/bin:/bin"}, 64 << 20, 0, "65536\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			errf, _ := os.CreateTemp(t.TempDir(), "err")
			c := Config{Stdout: out, Stderr: errf}.streams()
			rel := &gate.Released{Env: tc.env, ParentGone: make(chan struct{})}
			if got := c.runMember(tc.argv, rel, tc.data, make(chan os.Signal)); got != tc.code {
				t.Errorf("status %d, want %d", got, tc.code)
			}
			b, _ := os.ReadFile(out.Name())
			if string(b) != tc.stdout {
				t.Errorf("stdout %q, want %q", b, tc.stdout)
			}
			if e, _ := os.ReadFile(errf.Name()); tc.code == 127 && !strings.Contains(string(e), "acbox: no-such-command-acbox:") {
				t.Errorf("stderr %q", e)
			}
		})
	}
	if old, err := getData(); err != nil || old.Cur == 64<<20 {
		t.Errorf("the init's own RLIMIT_DATA after the run: %+v, %v; want it restored", old, err)
	}
}

// TestParentGone: the member is killed when the parent goes away.
func TestParentGone(t *testing.T) {
	gone := make(chan struct{})
	close(gone)
	errf, _ := os.CreateTemp(t.TempDir(), "err")
	c := Config{Stderr: errf}.streams()
	rel := &gate.Released{Env: []string{"PATH=/usr/bin:/bin"}, ParentGone: gone}
	if got := c.runMember([]string{"sleep", "60"}, rel, 0, make(chan os.Signal)); got != 128+9 {
		t.Errorf("status %d, want %d (SIGKILL)", got, 128+9)
	}
	if e, _ := os.ReadFile(errf.Name()); !strings.Contains(string(e), "the parent is gone") {
		t.Errorf("stderr %q", e)
	}
}

// TestSignalOnTerminal: on a terminal too, every signal the parent passes
// on reaches the member, SIGINT included. The init dropped SIGINT there,
// on the view that Ctrl-C reaches the member through its terminal; but
// with acbox's terminal raw, Ctrl-C sends acbox no signal at all, so a
// SIGINT it passes on came from kill(1) or from a Ctrl-C during the setup,
// before the terminal went raw, and was lost.
func TestSignalOnTerminal(t *testing.T) {
	master, slave := openPty(t)
	defer master.Close()
	defer slave.Close()
	errf, _ := os.CreateTemp(t.TempDir(), "err")
	c := Config{Stdin: slave, Stdout: slave, Stderr: errf}.streams()
	rel := &gate.Released{Env: []string{"PATH=/usr/bin:/bin"}, ParentGone: make(chan struct{})}
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT
	if got := c.runMember([]string{"sleep", "10"}, rel, 0, sigs); got != 128+int(syscall.SIGINT) {
		t.Errorf("status %d, want %d (the member killed by the SIGINT passed on)", got, 128+int(syscall.SIGINT))
	}
}

// openPty opens a pseudo-terminal pair.
func openPty(t *testing.T) (master, slave *os.File) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	master = os.NewFile(uintptr(m), "ptmx")
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}
