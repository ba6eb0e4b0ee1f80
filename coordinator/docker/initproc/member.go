package initproc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
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
		return c.execFailed(rel, argv[0], path, err)
	}
	if err := rel.Tell(gate.Exec{}); err != nil && !errors.Is(err, gate.ErrNoGate) {
		// The parent reports the start only once it hears this; without
		// it, it is gone or will refuse.
		fmt.Fprintf(policy.MessageWriter(c.Stderr), "acbox: start gate: %v; the member was not started\n", err)
		return 126
	}
	m := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr}
	c.adj.raise() // inherited by the member from its start
	err = startWithData(m, data)
	c.adj.restore()
	if err != nil {
		return c.execFailed(rel, argv[0], path, err)
	}
	// SIGINT too on a terminal: acbox's own terminal is raw then, so a
	// Ctrl-C reaches the member through the container's terminal and
	// sends acbox nothing; a SIGINT acbox passes on came another way.
	go func() {
		for {
			select {
			case sig := <-sigs:
				m.Process.Signal(sig)
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

// execFailed reports a command that could not be executed to the parent,
// which exits 127 (not found) or 126 (not executable) with the reason; the
// same statuses, and the reason on stderr, when the parent cannot be told.
func (c Config) execFailed(rel *gate.Released, cmd, path string, err error) int {
	class := execClass(err)
	code := 126
	if class == policy.ExecNotFound {
		code = 127
	}
	if path == "" && strings.ContainsRune(cmd, '/') {
		path = cmd
	}
	if class != "" {
		detail := execDetail(path, class, err, rel.Env)
		if rel.Tell(gate.Exec{Exec: class, Command: cmd, Detail: detail}) == nil {
			return code
		}
	}
	fmt.Fprintf(policy.MessageWriter(c.Stderr), "acbox: %s: %v\n", policy.Quote(cmd), err)
	return code
}

func execClass(err error) string {
	if errors.Is(err, exec.ErrNotFound) {
		return policy.ExecNotFound
	}
	return policy.ExecClass(err)
}

// execDetail is what was looked at and what the kernel said, as the
// native backend words it.
func execDetail(path, class string, err error, env []string) string {
	if errors.Is(err, exec.ErrNotFound) {
		for _, kv := range env {
			if strings.HasPrefix(kv, "PATH=") {
				return "PATH=" + policy.Quote(kv[len("PATH="):])
			}
		}
		return "no PATH"
	}
	var errno syscall.Errno
	why := err.Error()
	switch {
	case errors.As(err, &errno):
		why = errno.Error()
	case errors.Is(err, fs.ErrPermission):
		why = "not an executable file"
	}
	if class == policy.ExecNotFound && path != "" {
		if _, serr := os.Stat(path); serr == nil {
			return policy.Quote(path) + " exists, but its interpreter or dynamic loader does not"
		}
	}
	if path == "" {
		return why
	}
	return policy.Quote(path) + ": " + why
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
