package probe

import (
	"os"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/nsjail"
)

// MemberPath is where the runner mounts its own executable in the sandbox.
const MemberPath = "/.acbox/acbox"

// Runner starts sandboxes whose member is Exe running `probe`.
type Runner struct {
	Exe      string        // the acbox binary, canonical
	Fixture  *Fixture      // canaries and grants
	Stderr   *os.File      // the members' stderr; nil: /dev/null
	Watchdog time.Duration // kill a sandbox after this; 0: two minutes
	// Backend launches the sandboxes; nil: the native one. Under docker
	// the backend binds Exe at MemberPath itself, as the container's init.
	Backend backend.Backend
	Image   string // the docker image; empty: the backend's default
}

func (r *Runner) backend() backend.Backend {
	if r.Backend == nil {
		return nsjail.Backend{}
	}
	return r.Backend
}

func (r *Runner) docker() bool { return r.backend().Name() == Docker }

// Modes are the member behaviours the lifecycle scenarios start instead of
// the probes. The kong tags make them hidden flags of `acbox probe`.
type Modes struct {
	Exit       int      `hidden:"" default:"-1" help:"Exit with this status."`
	KillSelf   int      `hidden:"" help:"Kill itself with this signal."`
	WaitSignal bool     `hidden:"" help:"Print ready, exit 42 on SIGUSR1 (3 after 30s)."`
	Daemon     string   `hidden:"" placeholder:"FILE" help:"Start a setsid'd heartbeat child writing FILE, print ready, sleep."`
	Heartbeat  string   `hidden:"" placeholder:"FILE" help:"Write the time to FILE every 50ms for two minutes."`
	MapWrite   []string `hidden:"" sep:"none" placeholder:"FILE" help:"Rewrite FILE's first bytes through a shared mapping and hard-link it to FILE.link (repeatable)."`
	// CrossBroker is the attacker of life.cross-sandbox-broker (cross_broker_linux.go).
	CrossBroker string `hidden:"" placeholder:"DIR" help:"Wait for DIR/xdg/acbox/run/*/broker.sock and ask it for a child writing DIR/bw/pwned; exit 0 if refused."`
}
