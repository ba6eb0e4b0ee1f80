package initproc

import (
	"fmt"
	"net"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/bridge"
	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// Config is one container's init. Zero streams are the process's own.
type Config struct {
	Gate  string // the start gate's Unix socket
	Token string // this sandbox's one-time gate token
	Proxy string // the egress proxy's Unix socket (proxy mode); "" for none
	Data  uint64 // RLIMIT_DATA for the member; 0 for none
	// Command is the member's argv; a leading "--" is dropped.
	Command               []string
	Stdin, Stdout, Stderr *os.File
	adj                   oomAdj // the OOM killer's preference for the member (oomadj.go)
}

// Run serves the proxy bridge, waits for the gate's release and runs the
// member (see the package doc). It returns the member's exit status, or
// an error (and runs nothing) when the member could not be released.
func Run(c Config) (int, error) {
	cmd := c.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		return 0, fmt.Errorf("%w: container-init: no member command", policy.ErrInvalid)
	}
	c.adj = openOOMAdj() // while its /proc files are still the init's
	// Not dumpable: the member (same uid) cannot ptrace this process or
	// read its memory; the token it held is spent anyway.
	if err := undumpable(); err != nil {
		return 0, fmt.Errorf("%w: container-init: making the init not dumpable (PR_SET_DUMPABLE), without which the member "+
			"could ptrace it: %w; the member was not started", policy.ErrCannotSandbox, err)
	}
	if err := checkProcRootOnly("/proc"); err != nil {
		return 0, fmt.Errorf("%w: container-init: %w; the member was not started", policy.ErrCannotSandbox, err)
	}
	if c.Proxy != "" {
		ln, err := bridge.Listen()
		if err != nil {
			return 0, fmt.Errorf("%w: proxy bridge: %w", policy.ErrCannotSandbox, err)
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
		return 0, fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	return c.streams().runMember(cmd, rel, c.Data, sigs), nil
}

func (c Config) streams() Config {
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	return c
}
