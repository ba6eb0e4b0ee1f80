package nsjail

import (
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// HelperArg0 is argv[0] of the sandbox's pid 1. The helper mode is chosen by
// this name and by the presence of the config pipe, never by a flag or an
// environment variable a member could pass to a nested acbox.
const HelperArg0 = "acbox-init"

// File descriptors of the helper, in ExtraFiles order.
const (
	fdConfig = 3 // read: one helperConfig frame (wire_proto.go), then releaseByte
	fdStatus = 4 // write: helperMsg frames, one per message
	// Further descriptors follow in this order when present; their numbers
	// are in helperConfig: the proxy's socket (O_PATH, proxy mode), the
	// pty handover socket (tty mode) and the v1 cgroup leaves.
	fdFirstOptional = 5
)

// ident is the identity the parent recorded for a path it opened.
type ident struct {
	Path string `json:"path"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

// helperConfig is everything the helper needs; it holds no secrets.
type helperConfig struct {
	ID      string       `json:"id"`
	Plan    *policy.Plan `json:"plan"`
	Idents  []ident      `json:"idents"`
	Access  string       `json:"access"`
	ProxyFD int          `json:"proxy_fd"` // 0: none
	PtyFD   int          `json:"pty_fd"`   // 0: none
	// PolicyDigest is computed by the parent (policy.PolicyDigest) and
	// carried into the report.
	PolicyDigest string `json:"policy_digest"`
	// Winsize is the user's terminal size at launch (tty mode), set on the
	// member's pty before it starts; later changes follow SIGWINCH.
	Winsize *unix.Winsize `json:"winsize,omitempty"`
	// PidsCgroup: the helper is in a pids cgroup (cloned there, or it
	// enters one through CgroupLeaves).
	PidsCgroup bool `json:"pids_cgroup"`
	// CgroupLeaves are the helper's descriptors of its v1 leaves, which it
	// enters before anything else (enterCgroups); CgroupID names them, to
	// check that it is inside.
	CgroupLeaves []int  `json:"cgroup_leaves,omitempty"`
	CgroupID     string `json:"cgroup_id,omitempty"`
	// UserCounters are the /proc/sys/user caps pid 1 sets (ucount.go).
	UserCounters []userCounter `json:"user_counters,omitempty"`
	// IPCLimits are the System V IPC caps pid 1 sets (ipclimit.go).
	IPCLimits []ipcLimit `json:"ipc_limits,omitempty"`
	// MemberSlack is the spawning thread's timer slack (ns) before it lent
	// pid 1 pid1Slack (lendSlack); the member gets it back. 0: none lent.
	MemberSlack uint64 `json:"member_slack,omitempty"`
}

// helperMsg is one frame on the status pipe from the helper to the parent.
type helperMsg struct {
	// Kind: "fork" (the member is about to be forked: from then on it may
	// run), "ready", "exit", "error".
	Kind   string         `json:"kind"`
	Report *policy.Report `json:"report,omitempty"`
	Pid    int            `json:"pid,omitempty"` // member pid inside the sandbox
	Code   int            `json:"code,omitempty"`
	Signal int            `json:"signal,omitempty"`
	Error  string         `json:"error,omitempty"`
	Step   string         `json:"step,omitempty"`
	Errno  string         `json:"errno,omitempty"`
	// Exec is set when the member's command could not be executed (not
	// found, not executable): the parent exits 127 or 126 with its words.
	Exec *policy.ExecError `json:"exec,omitempty"`
	// Entered (ready) counts the v1 cgroup leaves pid 1 entered; the parent
	// requires every leaf it passed, so a pid 1 of an older build (which
	// ignored the leaves) cannot leave the sandbox outside its cgroup while
	// the report says the limits hold.
	Entered int `json:"entered,omitempty"`
}

func (c *helperConfig) identOf(path string) (ident, bool) {
	for _, id := range c.Idents {
		if id.Path == path {
			return id, true
		}
	}
	return ident{}, false
}

// releaseByte follows the config on fdConfig once the parent has checked the
// helper's cgroup v2 placement, where there is one: only then may the member
// start.
const releaseByte = 'g'
