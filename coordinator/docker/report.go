package docker

import (
	"fmt"
	"os"
	"strconv"

	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/policy"
)

// landlockWhy is the report's word on Landlock for this backend.
const landlockWhy = "landlock: not available in the docker backend; the container's read-only root and binds are the file boundary"

// masksWhy: a mask inside a grant or a mount source is refused before
// create (lacks.go), and the container's /etc is the image's, so no
// masked host path is in the container at all, at launch or later.
const masksWhy = "no masked host path is shown: masks inside grants and mount sources are refused, system files are the image's"

// userCountersWhy: without a user namespace of its own (a rootful daemon,
// which the backend requires) the member's per-user kernel counters are the
// caller's own; docs/backends.md says so.
const userCountersWhy = "user_counters: not available in the docker backend; the container has no user namespace of its own, so inotify, fanotify and queued-signal counters are the caller's"

// ipcLimitsWhy: the container's IPC namespace keeps the kernel's limits;
// its memory cgroup charges System V IPC to the container's limit, which
// the native backend's caps stand in for where there is no cgroup.
const ipcLimitsWhy = "ipc_limits: not set in the docker backend; the container's System V IPC is charged to its memory cgroup"

// report states what this container enforces, from the daemon's view of
// it (checked equal to the plan) and the init's own view of itself. The
// init is acbox's binary and runs before any member code, so its view is
// the member's starting point.
func (l *launch) report(in engine.InspectResponse, got gate.Idents, hostSide bool) *policy.Report {
	self := got.Self
	r := &policy.Report{
		ID: l.s.id, Backend: "docker", PolicyDigest: policy.PolicyDigest(), Caps: self.Caps, NoNewPrivs: self.NoNewPrivs,
		Namespaces: l.init.namespaces(), Mounts: l.mountRecords(got.Idents),
		Limits: map[string]string{
			"memory": strconv.FormatInt(l.s.plan.Limits.Memory, 10) + " (cgroup, no swap)",
			"pids":   strconv.Itoa(l.s.plan.Limits.Pids) + " (cgroup)",
			"data":   strconv.FormatInt(l.s.plan.Limits.Memory, 10) + " (RLIMIT_DATA of the member, set by acbox's init)",
		},
		PhasesMS: map[string]float64{"start_to_release": msSince(l.begin)},
	}
	verified := "in-container fstat via the start gate"
	if hostSide {
		verified += " and /proc/<pid>/root from the host, with the read-only state of every read-only bind and pin"
	} else if l.init.why != "" {
		verified += "; not from the host: " + l.init.why
	}
	r.Controls = []policy.Control{
		{Name: "user", Requested: true, Enforced: true, Why: "uid:gid " + self.UID + " / " + self.GID},
		{Name: "capabilities", Requested: true, Enforced: noCaps(self.Caps)},
		{Name: "no_new_privs", Requested: true, Enforced: self.NoNewPrivs},
		{Name: "network_isolation", Requested: true, Enforced: in.HostConfig.NetworkMode == "none", Why: "network none: only lo; egress through the proxy bridge on " + policy.ProxyAddr},
		{Name: "read_only_root", Requested: true, Enforced: in.HostConfig.ReadonlyRootfs},
		{Name: "mounts", Requested: true, Enforced: true, Why: "every bind's dev/ino checked after start (" + verified + ")"},
		{Name: "pid_namespace", Requested: true, Enforced: in.HostConfig.PidMode == "", Why: "docker's init as pid 1"},
		{Name: "limits", Requested: true, Enforced: in.HostConfig.Memory == l.s.plan.Limits.Memory, Why: "memory by the container's cgroup (read back from the daemon); RLIMIT_DATA per process"},
		{Name: "pids_limit", Requested: true, Enforced: in.HostConfig.PidsLimit != nil && *in.HostConfig.PidsLimit == int64(l.s.plan.Limits.Pids), Why: "pids by the container's cgroup (read back from the daemon)"},
		{Name: "seccomp", Requested: true, Enforced: self.Seccomp == "2", Why: "acbox's profile (docker's default narrowed to acbox's native policy, x86_64 only) " + ProfileDigest() + " (Seccomp: " + self.Seccomp + ")"},
		{Name: "apparmor", Requested: false, Enforced: self.AppArmor != "" && self.AppArmor != "unconfined", Why: "as the container runtime provides it: " + orNone(self.AppArmor)},
		{Name: "landlock", Requested: false, Enforced: false, Why: landlockWhy},
		{Name: "masks_whole_run", Requested: true, Enforced: true, Why: masksWhy},
		{Name: "user_counters", Requested: false, Enforced: false, Why: userCountersWhy},
		{Name: "ipc_limits", Requested: false, Enforced: false, Why: ipcLimitsWhy},
	}
	return r
}

// mountRecords lists every bind with the identity the init saw (equal to
// the held source's, or the launch was refused), and every tmpfs.
func (l *launch) mountRecords(idents []gate.Ident) []policy.MountRecord {
	byPath := map[string]gate.Ident{}
	for _, id := range idents {
		byPath[id.Path] = id
	}
	kinds := map[string]string{}
	for _, g := range l.s.plan.Grants {
		kinds[g.Path] = "grant"
	}
	for _, c := range l.s.plan.Protected {
		kinds[c.Path] = "protect" // the native backend's words
		if c.Mode == policy.CarvePin {
			kinds[c.Path] = "pin"
		}
	}
	var out []policy.MountRecord
	for _, m := range l.s.binds {
		kind := kinds[m.Target]
		if kind == "" {
			kind = "mount"
		}
		flags := "rw,nonrecursive"
		if m.ReadOnly {
			flags = "ro,nonrecursive"
		}
		id := byPath[m.Target]
		out = append(out, policy.MountRecord{Target: m.Target, Kind: kind, Source: m.Source, Dev: id.Dev, Ino: id.Ino, Flags: flags})
	}
	for _, t := range l.s.plan.Tmpfs {
		out = append(out, policy.MountRecord{Target: t.Target, Kind: "tmpfs", Flags: l.s.tmpfs[t.Target]})
	}
	return out
}

// namespaces reads the container's namespace inodes from the host side,
// through its pid 1 verified here (pinInit); empty without one, where
// this process may not look, or once that pid 1 has ended (its pid may
// name another process).
func (h *hostInit) namespaces() map[string]uint64 {
	out := map[string]uint64{}
	if h.pid <= 0 {
		return out
	}
	for _, ns := range []string{"mnt", "pid", "net", "ipc", "uts", "cgroup", "user"} {
		fi, err := os.Stat(fmt.Sprintf("/proc/%d/ns/%s", h.pid, ns))
		if err != nil {
			continue
		}
		if st, ok := statIno(fi); ok {
			out[ns] = st
		}
	}
	if h.exited() {
		return map[string]uint64{}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
