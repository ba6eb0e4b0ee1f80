package policy

import (
	"os"
	"time"
)

// Backend runs a plan. The native backend (package nsjail) and the docker
// backend are peers behind this interface and give the same guarantees;
// neither may run the command with less isolation than the plan asks for.
type Backend interface {
	// Name is "native" or "docker".
	Name() string
	// Launch runs the plan's command, waits for it and returns how it ended.
	Launch(p *Plan, io LaunchIO) (*Outcome, error)
}

// LaunchIO is what a backend needs besides the plan. Zero values: the
// process's standard streams, a random id, no proxy.
type LaunchIO struct {
	ID                    string
	Stdin, Stdout, Stderr *os.File
	// ProxySocket is the egress proxy's Unix socket (proxy mode only).
	ProxySocket string
	// RunDir is the sandbox's private run directory (StateDir/run/ID),
	// which the registry's gc removes when the owner is gone; a backend
	// keeps its own sockets there. Empty: the backend's default.
	RunDir string
	// OnReady is called once the member runs, before its first instruction
	// is guaranteed to have executed, with the enforcement report.
	OnReady func(Started)
}

// Started describes a running sandbox.
type Started struct {
	ID     string
	Pid    int // host pid that represents the sandbox (native: its pid 1)
	Report *Report
}

// Outcome is how the member ended.
type Outcome struct {
	Code     int // exit status, or 128+Signal
	Signal   int
	Report   *Report
	Duration time.Duration
	// GitRedirects are the commondir files that appeared in protected git
	// directories during the run, as moved aside by the launcher.
	GitRedirects []string
}
