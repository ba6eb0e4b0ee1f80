package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acbox/acbox/bridge"
	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// ContainerInitCmd is the docker backend's in-container init: the
// container's process under docker's init (pid 1). It relays the egress
// proxy onto 127.0.0.1:3128 (proxy mode), asks the start gate once, and
// runs the member only when the parent released it. It never runs the
// member on any other path. See package coordinator/docker.
type ContainerInitCmd struct {
	Gate    string   `required:"" placeholder:"SOCKET" help:"The start gate's Unix socket."`
	Token   string   `required:"" help:"This sandbox's one-time gate token."`
	Proxy   string   `placeholder:"SOCKET" help:"The egress proxy's Unix socket (proxy mode)."`
	Data    uint64   `name:"data-limit" placeholder:"BYTES" help:"RLIMIT_DATA for the member (0: none)."`
	Command []string `arg:"" passthrough:"" help:"The member's command, after --."`
}

// Run serves the proxy bridge, waits for release and runs the member.
func (c *ContainerInitCmd) Run(s *Streams) error {
	// Not dumpable: the member (same uid) cannot ptrace this process or
	// read its memory; the token it held is spent anyway.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	cmd := c.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		return fmt.Errorf("%w: container-init: no member command", policy.ErrInvalid)
	}
	if c.Proxy != "" {
		ln, err := bridge.Listen()
		if err != nil {
			return fmt.Errorf("%w: proxy bridge: %v", policy.ErrCannotSandbox, err)
		}
		go bridge.Serve(ln, func() (net.Conn, error) { return net.Dial("unix", c.Proxy) })
	}
	// Caught before the gate is asked: the parent passes signals on as soon
	// as it has released the start, and one arriving before the member
	// exists must wait for it, not end this process.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGINT)
	rel, err := gate.Ask(c.Gate, c.Token, gate.StatPaths)
	if err != nil {
		return fmt.Errorf("%w: %v", policy.ErrCannotSandbox, err)
	}
	return runMember(cmd, rel, c.Data, sigs)
}

// runMember starts the member with exactly the released environment and
// RLIMIT_DATA at data (as the native backend does: the cgroup charges pages
// only when touched, the rlimit refuses a large mapping up front), passes
// signals on, kills it when the parent is gone, and exits with its status
// (128+N for signal N).
func runMember(argv []string, rel *gate.Released, data uint64, sigs <-chan os.Signal) error {
	env := rel.Env
	path, err := lookPath(argv[0], env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "acbox: %s: %v\n", argv[0], err)
		return exitError{code: 127}
	}
	m := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := startWithData(m, data); err != nil {
		fmt.Fprintf(os.Stderr, "acbox: %s: %v\n", argv[0], err)
		return exitError{code: 126}
	}
	// On a terminal, Ctrl-C already reaches the member's process group.
	tty := term.IsTerminal(int(os.Stdin.Fd()))
	go func() {
		for {
			select {
			case sig := <-sigs:
				if sig != unix.SIGINT || !tty {
					m.Process.Signal(sig)
				}
			case <-rel.ParentGone:
				fmt.Fprintln(os.Stderr, "acbox: the parent is gone; ending the member")
				m.Process.Kill()
				return
			}
		}
	}()
	m.Wait()
	ws, _ := m.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return exitError{code: 128 + int(ws.Signal())}
	}
	return exitError{code: ws.ExitStatus()}
}

// startWithData starts m with RLIMIT_DATA at limit, and restores the
// init's own limit right after, so that its Go heap keeps room (rlimits
// are per process, so no thread needs locking).
func startWithData(m *exec.Cmd, limit uint64) error {
	if limit == 0 {
		return m.Start()
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return os.NewSyscallError("getrlimit", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: limit, Max: old.Max}); err != nil {
		return os.NewSyscallError("setrlimit RLIMIT_DATA", err)
	}
	err := m.Start()
	unix.Setrlimit(unix.RLIMIT_DATA, &old)
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
