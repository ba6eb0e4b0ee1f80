package docker

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// Fixed paths inside every container.
const (
	// InitPath is where the acbox binary is bound read-only; it runs the
	// hidden command container-init as the container's process (under
	// docker's init, pid 1).
	InitPath   = "/.acbox/acbox"
	gateTarget = "/.acbox/gate"
	gateSocket = gateTarget + "/gate.sock"
	proxyDir   = "/.acbox/proxy"
	// InitCommand is the hidden acbox command that runs inside.
	InitCommand = "container-init"
)

// Label keys that tie a container to its owner.
const (
	LabelID         = "acbox.id"
	LabelOwnerPid   = "acbox.owner.pid"
	LabelOwnerStart = "acbox.owner.start"
	LabelOwnerPidNS = "acbox.owner.pidns"
	LabelUID        = "acbox.uid"
	labelUser       = "acbox.label."
)

// maskedPaths are hidden by runc after every mount is made: a directory
// under an empty read-only tmpfs, a file under /dev/null. They are the
// host-wide /proc entries both backends hide (policy.ProcMaskFiles and
// ProcMaskDirs: docker's defaults for /proc and the page, allocator,
// keyring, symbol and interrupt files docker leaves readable), and three
// of acbox's own, for what docker always mounts and the native sandbox
// does not have:
//
//   - /sys: docker mounts a read-only sysfs (with the cgroup file system
//     beneath); the native sandbox has no /sys. Masking /sys itself also
//     hides docker's default masks beneath it (/sys/firmware,
//     /sys/devices/virtual/powercap).
//   - /dev/mqueue: the container's (private) POSIX message queue file
//     system; the directory stays, empty.
//   - /etc/resolv.conf: docker's copy of the host's; with network none the
//     member has no resolver to reach, and the file would show the host's
//     name servers and search domains.
//
// At launch the parent adds the host's /proc entries only root may read
// that the lists do not name (setup.masked, hostRootOnlyProc).
var maskedPaths = append(procMasks(), "/sys", "/dev/mqueue", "/etc/resolv.conf")

// procMasks: the /proc entries every sandbox hides, as paths.
func procMasks() []string {
	var out []string
	for _, n := range append(policy.ProcMaskFiles(), policy.ProcMaskDirs()...) {
		out = append(out, "/proc/"+n)
	}
	return out
}

// readonlyPaths are docker's defaults, set explicitly so that inspection
// can require them.
var readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}

// securityOpts: no_new_privs, and acbox's seccomp profile (seccomp.go).
func securityOpts() []string { return []string{"no-new-privileges", seccompOpt()} }

// setup is everything the container configuration is built from: the plan
// and what the parent prepared for it. Built once; the create request and
// the inspect check both read it.
type setup struct {
	plan   *policy.Plan
	id     string
	image  string
	exe    string // host path of the static acbox binary
	gate   string // host directory holding the gate socket
	proxy  string // host path of the egress proxy socket ("" without proxy)
	token  string
	owner  owner
	binds  []engine.Mount
	tmpfs  map[string]string
	labels map[string]string
	// masked is maskedPaths and the host's /proc entries only root may
	// read that policy's lists do not name (hostRootOnlyProc).
	masked []string
}

func newSetup(p *policy.Plan, id, image, exe, gate, proxy, token string, o owner) *setup {
	s := &setup{plan: p, id: id, image: image, exe: exe, gate: gate, proxy: proxy, token: token, owner: o}
	s.binds = s.mounts()
	s.tmpfs = s.tmpfsOptions()
	s.labels = s.labelSet()
	s.masked = slices.Clone(maskedPaths)
	return s
}

// name is the container's name.
func (s *setup) name() string { return "acbox-" + s.id }

// mounts lists every bind: grants and runtime mounts at their targets, the
// carve-outs (coordinator/policy/protect.go) onto themselves, then acbox's own.
// Binds are non-recursive: with API 1.41 a read-only recursive bind leaves
// submounts writable, and a submount is not what was granted anyway.
//
// The order of this list is not the order of mounting: the daemon sorts
// every mount by the depth of its target (moby daemon/volumes.go
// sortMounts, not a stable sort) and runc mounts in that order. A carve-out
// lies strictly inside its grant, and a pin strictly above what it pins,
// so each is mounted after what it lies in: .git (pin) over the grant, then
// .git/hooks and .git/config (read-only) over the pin, as natively. Two
// mounts of one depth never overlap, since no two binds share a target.
// The start gate checks the outcome from the host (checkReadOnly).
func (s *setup) mounts() []engine.Mount {
	var out []engine.Mount
	add := func(src, dst string, ro bool) {
		out = append(out, engine.Mount{Type: engine.MountTypeBind, Source: src, Target: dst, ReadOnly: ro,
			BindOptions: &engine.BindOptions{Propagation: engine.PropagationRPrivate, NonRecursive: true}})
	}
	for _, g := range s.plan.Grants {
		add(g.Path, g.Path, !g.Write)
	}
	for _, m := range s.plan.Mounts {
		add(m.Source, m.Target, m.Readonly)
	}
	for _, c := range s.plan.Protected {
		add(c.Path, c.Path, c.Mode != policy.CarvePin) // any other mode: read-only, as natively
	}
	add(s.exe, InitPath, true)
	// Read-only binds: connecting to a Unix socket needs no write access
	// to the file system, and the member cannot unlink or replace them.
	add(s.gate, gateTarget, true)
	if s.proxy != "" {
		add(filepath.Dir(s.proxy), proxyDir, true)
	}
	return out
}

func (s *setup) proxyTarget() string {
	if s.proxy == "" {
		return ""
	}
	return proxyDir + "/" + filepath.Base(s.proxy)
}

// tmpfsOptions: /tmp sticky and world-writable like a real /tmp, every
// other tmpfs private to the user; all owned by the user.
func (s *setup) tmpfsOptions() map[string]string {
	out := map[string]string{}
	for _, t := range s.plan.Tmpfs {
		mode := "700"
		if t.Target == "/tmp" {
			mode = "1777"
		}
		out[t.Target] = fmt.Sprintf("rw,exec,nosuid,nodev,size=%d,uid=%d,gid=%d,mode=%s", t.Size, s.plan.UID, s.plan.GID, mode)
	}
	return out
}

func (s *setup) labelSet() map[string]string {
	out := map[string]string{
		LabelID: s.id, LabelUID: strconv.Itoa(s.plan.UID),
		LabelOwnerPid: strconv.Itoa(s.owner.pid), LabelOwnerStart: s.owner.start, LabelOwnerPidNS: s.owner.pidns,
	}
	for k, v := range s.plan.Labels {
		out[labelUser+k] = v
	}
	return out
}

// cmd is the container's command: the init, its gate and proxy, then the
// member's command, which it runs only after release.
func (s *setup) cmd() []string {
	c := []string{InitCommand, "--gate", gateSocket, "--token", s.token}
	if s.plan.Limits.Memory > 0 {
		c = append(c, "--data-limit", strconv.FormatInt(s.plan.Limits.Memory, 10))
	}
	if s.proxy != "" {
		c = append(c, "--proxy", s.proxyTarget())
	}
	return append(append(c, "--"), s.plan.Command...)
}

// env is the member's environment: the plan's, and ACBOX_ACCESS under its
// names (access_env).
func (s *setup) env() []string {
	return append(append([]string{}, s.plan.Env...), s.plan.AccessVars(s.plan.Access(true))...)
}

// config returns the create request. Every map and slice is a copy, so
// that nothing done to the request can change what it is checked against.
func (s *setup) config() (*engine.Config, *engine.HostConfig) {
	p := s.plan
	cfg := &engine.Config{
		Hostname: p.Hostname, User: fmt.Sprintf("%d:%d", p.UID, p.GID), Env: s.env(),
		Entrypoint: []string{InitPath}, Cmd: s.cmd(), WorkingDir: p.Cwd, Image: s.image,
		Tty: p.TTY, OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Labels:      maps.Clone(s.labels),
		Healthcheck: &engine.HealthConfig{Test: []string{"NONE"}},
	}
	pids := int64(p.Limits.Pids)
	yes := true
	hc := &engine.HostConfig{
		NetworkMode: "none", RestartPolicy: engine.RestartPolicy{Name: engine.RestartDisabled},
		AutoRemove: true, LogConfig: engine.LogConfig{Type: "none"},
		CapDrop: []string{"ALL"}, SecurityOpt: securityOpts(), ReadonlyRootfs: true,
		MaskedPaths: slices.Clone(s.masked), ReadonlyPaths: slices.Clone(readonlyPaths),
		IpcMode: "private", CgroupnsMode: engine.CgroupnsPrivate, Init: &yes,
		Mounts: cloneMounts(s.binds), Tmpfs: maps.Clone(s.tmpfs),
		Resources: engine.Resources{Memory: p.Limits.Memory, MemorySwap: p.Limits.Memory, PidsLimit: &pids},
	}
	return cfg, hc
}

// bindTargets lists the targets whose identity the gate checks: every
// bind's, grants, runtime mounts, carve-outs and acbox's own alike (see
// checkIdents).
func (s *setup) bindTargets() []string {
	out := make([]string, 0, len(s.binds))
	for _, m := range s.binds {
		out = append(out, m.Target)
	}
	sort.Strings(out)
	return out
}

func cloneMounts(ms []engine.Mount) []engine.Mount {
	out := make([]engine.Mount, len(ms))
	for i, m := range ms {
		out[i] = m
		if m.BindOptions != nil {
			b := *m.BindOptions
			out[i].BindOptions = &b
		}
	}
	return out
}
