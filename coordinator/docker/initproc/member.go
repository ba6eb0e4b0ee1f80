package initproc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acbox/acbox/coordinator/docker/gate"
)

// runMember starts the member with exactly the released environment and
// RLIMIT_DATA at data (as the native backend does: the cgroup charges pages
// only when touched, the rlimit refuses a large mapping up front), passes
// signals on, kills it when the parent is gone, and returns its status
// (128+N for signal N).
func (c Config) runMember(argv []string, rel *gate.Released, data uint64, sigs <-chan os.Signal) int {
	env := rel.Env
	path, err := lookPath(argv[0], env)
	if err != nil {
		fmt.Fprintf(c.Stderr, "acbox: %s: %v\n", argv[0], err)
		return 127
	}
	m := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr}
	if err := startWithData(m, data); err != nil {
		fmt.Fprintf(c.Stderr, "acbox: %s: %v\n", argv[0], err)
		return 126
	}
	// On a terminal, Ctrl-C already reaches the member's process group.
	tty := term.IsTerminal(int(c.Stdin.Fd()))
	go func() {
		for {
			select {
			case sig := <-sigs:
				if sig != unix.SIGINT || !tty {
					m.Process.Signal(sig)
				}
			case <-rel.ParentGone:
				fmt.Fprintln(c.Stderr, "acbox: the parent is gone; ending the member")
				m.Process.Kill()
				return
			}
		}
	}()
	m.Wait()
	ws, _ := m.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// startWithData starts m with RLIMIT_DATA at limit, and restores the
// init's own limit right after, so that its Go heap keeps room (rlimits
// are per process, so no thread needs locking).
func startWithData(m *exec.Cmd, limit uint64) error {
	if limit == 0 {
		return m.Start()
	}
	old, err := getData()
	if err != nil {
		return err
	}
	if err := setData(limit, old.Max); err != nil {
		return err
	}
	err = m.Start()
	// Only the init's own heap room depends on this; the member keeps the
	// limit it started with either way.
	_ = setData(old.Cur, old.Max)
	return err
}

// lookPath finds file on the member's PATH.
func lookPath(file string, env []string) (string, error) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			os.Setenv("PATH", v)
		}
	}
	return exec.LookPath(file)
}
