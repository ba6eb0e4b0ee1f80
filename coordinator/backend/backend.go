package backend

import (
	"context"
	"os"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Backend runs plans in one kind of sandbox. The native backend (package
// nsjail) and the docker backend (package coordinator/docker) are peers
// behind this interface and give the same guarantees; neither may run the
// command with less isolation than the plan asks for. The launcher
// (package coordinator) knows backends only through it: adding a backend
// is its own package and one line where the program lists its backends.
type Backend interface {
	// Name is the backend's name in specs, plans and the registry
	// ("native", "docker").
	Name() string
	// Available says whether this host can run sandboxes of this backend
	// now, and if not, why and what to do.
	Available(ctx context.Context) Availability
	// Lacks names each control the plan asks for that this backend cannot
	// give on this host, with the remedy; empty when it can give them all.
	// The launcher refuses a plan that lacks anything (fail closed), and
	// Launch does too, through Refuse.
	Lacks(p *policy.Plan) []string
	// Live lists the ids of this backend's sandboxes running on this host,
	// including ones the registry does not know (admission counts them).
	Live(ctx context.Context) ([]string, error)
	// Cleanup removes what sandboxes of this backend left behind after
	// their owner died (cgroups, containers), sparing any id for which
	// live reports true (nil live spares none), and names what it removed.
	// With live false only for a few ids (the entries admission just
	// reaped) it removes what those left, without a walk of the host.
	Cleanup(ctx context.Context, live func(id string) bool) ([]string, error)
	// Launch runs the plan's command, waits for it and returns how it
	// ended. The plan is not modified.
	Launch(p *policy.Plan, io LaunchIO) (*Outcome, error)
}

// Availability is a backend's answer to "can this host run you now".
type Availability struct {
	Backend   string `json:"backend"`
	Available bool   `json:"available"`
	// Why names what is missing when Available is false; Remedy the step
	// that fixes it.
	Why    string `json:"why,omitempty"`
	Remedy string `json:"remedy,omitempty"`
	// Details are facts worth printing either way ("landlock ABI 7").
	Details []string `json:"details,omitempty"`
}

// LaunchIO is what a backend needs besides the plan. Zero values: the
// process's standard streams, a random id, no proxy.
type LaunchIO struct {
	ID                    string
	Stdin, Stdout, Stderr *os.File
	// ProxySocket is the egress proxy's Unix socket (proxy mode only).
	ProxySocket string
	// RunDir is the sandbox's private run directory (StateDir/run/ID),
	// which the registry removes with the sandbox's entry, and its gc when
	// the owner is gone; a backend keeps its own sockets there. It exists
	// only if the launcher keeps a socket there too (proxy mode,
	// delegation): a backend that needs it makes it, 0700 (os.MkdirAll).
	// Empty: the backend's default.
	RunDir string
	// OnReady is called once the member runs, before its first instruction
	// is guaranteed to have executed, with the enforcement report.
	OnReady func(Started)
	// Signals are the signals the caller caught for this launch before it
	// called Launch (the launcher's hold) and catches until Launch
	// returns. The backend is their only reader meanwhile: it passes on
	// those it forwards, from the first, as it does the ones that arrive
	// during its setup (held until the member runs), and ignores the
	// others (SIGPIPE). Nil: the backend catches the signals it forwards
	// itself when Launch begins; one the caller took before that would be
	// lost.
	Signals <-chan os.Signal
}

// Started describes a running sandbox.
type Started struct {
	ID string
	// Pid is the sandbox's pid 1 in the caller's pid namespace (native:
	// the caller's own child; docker: the container's init, once the
	// backend has seen that this pid is pid 1 of the container's pid
	// namespace). 0 when the backend has no such pid it verified (docker
	// with a daemon in another pid namespace, or an init this process may
	// not look at): never a pid that may name another process.
	Pid int
	// Pidfd, when > 0, is a pidfd the backend opened on Pid before it
	// verified Pid, valid until Launch returns: a caller that keeps the
	// sandbox's pid 1 dups it rather than opening one on Pid, which by
	// then could name another process. 0: open one on Pid (native: the
	// caller's child, not reaped before Launch returns).
	Pidfd int
	// Kill, when not nil, ends the sandbox at once (every process in it)
	// without a host pid (docker: the Engine API kills the container).
	// Callers prefer SIGKILL of Pid and use Kill when Pid is 0 or the
	// signal fails.
	Kill   func() error
	Report *policy.Report
}

// Outcome is how the member ended.
type Outcome struct {
	Code     int // exit status, or 128+Signal
	Signal   int
	Report   *policy.Report
	Duration time.Duration
	// GitRedirects are the commondir files that appeared in protected git
	// directories during the run, as moved aside by the launcher.
	GitRedirects []string
}
