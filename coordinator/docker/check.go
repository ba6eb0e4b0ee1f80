package docker

import (
	"fmt"
	"slices"
	"sort"

	"github.com/acbox/acbox/coordinator/docker/engine"
)

// problems compares a container, as the daemon reports it, with what s
// asked for, and lists every difference. Any problem means the container
// must not start (before start) or must be removed (after start). started
// adds the checks that only make sense on a running container.
func (s *setup) problems(in engine.InspectResponse, started bool) []string {
	var p []string
	add := func(ok bool, format string, args ...any) {
		if !ok {
			p = append(p, fmt.Sprintf(format, args...))
		}
	}
	if in.State == nil || in.HostConfig == nil || in.Config == nil {
		return []string{"the daemon returned an incomplete container description"}
	}
	s.checkHost(in.HostConfig, add)
	s.checkConfig(in.Config, add)
	s.checkMounts(in, add)
	if started {
		ports := in.NetworkSettings != nil && len(in.NetworkSettings.Ports) > 0
		add(!ports, "ports are bound after start")
		nets := in.NetworkSettings != nil && len(in.NetworkSettings.Networks) > 1
		add(!nets, "the container joined more than one network after start")
	}
	return p
}

type adder func(ok bool, format string, args ...any)

func (s *setup) checkHost(h *engine.HostConfig, add adder) {
	add(h.NetworkMode == "none", "network mode is %q, not none", h.NetworkMode)
	add(len(h.PortBindings) == 0 && !h.PublishAllPorts, "ports are published")
	add(!h.Privileged, "the container is privileged")
	add(slices.Equal(h.CapDrop, []string{"ALL"}) && len(h.CapAdd) == 0, "capabilities are not all dropped (drop %v, add %v)", h.CapDrop, h.CapAdd)
	add(slices.Equal(h.SecurityOpt, securityOpts()), "security options are not exactly no-new-privileges and acbox's seccomp profile (%s)", ProfileDigest())
	add(slices.Equal(h.MaskedPaths, s.masked), "masked paths are %v, want %v", h.MaskedPaths, s.masked)
	add(slices.Equal(h.ReadonlyPaths, readonlyPaths), "read-only paths are %v, want %v", h.ReadonlyPaths, readonlyPaths)
	add(h.ReadonlyRootfs, "the root file system is writable")
	add(h.PidMode == "", "pid namespace mode is %q, not private", h.PidMode)
	add(h.IpcMode == "private", "ipc namespace mode is %q, not private", h.IpcMode)
	add(h.UTSMode == "", "uts namespace mode is %q, not private", h.UTSMode)
	add(h.UsernsMode == "", "user namespace mode is %q", h.UsernsMode)
	add(h.CgroupnsMode == engine.CgroupnsPrivate, "cgroup namespace mode is %q, not private", h.CgroupnsMode)
	add(len(h.Devices) == 0 && len(h.DeviceRequests) == 0 && len(h.DeviceCgroupRules) == 0, "devices are added")
	add(len(h.GroupAdd) == 0, "supplementary groups are added: %v", h.GroupAdd)
	add(len(h.VolumesFrom) == 0 && len(h.Binds) == 0 && h.VolumeDriver == "", "volumes-from, binds or a volume driver are set")
	add(len(h.Links) == 0 && len(h.Sysctls) == 0, "links or sysctls are set")
	add(h.RestartPolicy.Name == "" || h.RestartPolicy.Name == engine.RestartDisabled, "restart policy is %q", h.RestartPolicy.Name)
	add(h.LogConfig.Type == "none", "log driver is %q, not none", h.LogConfig.Type)
	add(h.AutoRemove, "auto-remove is off")
	add(h.Init != nil && *h.Init, "no init process as pid 1")
	add(mapsEqual(h.Tmpfs, s.tmpfs), "tmpfs mounts are %v, want %v", h.Tmpfs, s.tmpfs)
	s.checkLimits(h.Resources, add)
}

func (s *setup) checkLimits(r engine.Resources, add adder) {
	l := s.plan.Limits
	add(r.Memory == l.Memory, "memory limit is %d, want %d", r.Memory, l.Memory)
	add(r.MemorySwap == l.Memory, "memory+swap limit is %d, want %d (no swap)", r.MemorySwap, l.Memory)
	add(r.PidsLimit != nil && *r.PidsLimit == int64(l.Pids), "pids limit is not %d", l.Pids)
	add(r.OomKillDisable == nil || !*r.OomKillDisable, "the OOM killer is disabled")
	add(r.CgroupParent == "", "cgroup parent is %q", r.CgroupParent)
}

func (s *setup) checkConfig(c *engine.Config, add adder) {
	want, _ := s.config()
	add(c.User == want.User, "user is %q, want %q", c.User, want.User)
	add(len(c.ExposedPorts) == 0, "ports are exposed (image EXPOSE or request)")
	add(len(c.Volumes) == 0, "volumes are declared (image VOLUME or request): %v", keys(c.Volumes))
	add(slices.Equal(c.Entrypoint, want.Entrypoint) && slices.Equal(c.Cmd, want.Cmd), "entrypoint or command differ from the plan")
	add(c.WorkingDir == want.WorkingDir, "working directory is %q, want %q", c.WorkingDir, want.WorkingDir)
	add(c.Tty == want.Tty, "tty is %v, want %v", c.Tty, want.Tty)
	add(c.Hostname == want.Hostname, "hostname is %q", c.Hostname)
	for k, v := range s.labels {
		add(c.Labels[k] == v, "label %s is %q, want %q", k, c.Labels[k], v)
	}
	for _, kv := range want.Env {
		add(slices.Contains(c.Env, kv), "environment lacks %s", kv)
	}
}

// checkMounts requires exactly the planned binds (grants, runtime mounts,
// carve-outs and acbox's own), with their sources, targets and modes, and
// nothing else (no volumes, no anonymous mounts).
func (s *setup) checkMounts(in engine.InspectResponse, add adder) {
	add(mountsEqual(in.HostConfig.Mounts, s.binds), "requested mounts differ from the plan")
	want := map[string]engine.Mount{}
	for _, m := range s.binds {
		want[m.Target] = m
	}
	add(len(in.Mounts) == len(s.binds), "%d mounts, want %d", len(in.Mounts), len(s.binds))
	seen := map[string]bool{}
	for _, m := range in.Mounts {
		w, ok := want[m.Destination]
		add(ok && m.Type == engine.MountTypeBind && m.Source == w.Source && m.RW == !w.ReadOnly,
			"unexpected mount %s %s -> %s (rw=%v)", m.Type, m.Source, m.Destination, m.RW)
		seen[m.Destination] = true
	}
	for _, m := range s.binds {
		add(seen[m.Target], "the planned mount at %s is missing", m.Target)
	}
}

func mountsEqual(got, want []engine.Mount) bool {
	if len(got) != len(want) {
		return false
	}
	key := func(m engine.Mount) string {
		b := m.BindOptions
		if b == nil {
			b = &engine.BindOptions{}
		}
		return fmt.Sprintf("%s|%s|%s|%v|%s|%v|%v|%v", m.Type, m.Source, m.Target, m.ReadOnly, b.Propagation, b.NonRecursive,
			m.VolumeOptions != nil, m.TmpfsOptions != nil)
	}
	a, b := make([]string, len(got)), make([]string, len(want))
	for i := range got {
		a[i], b[i] = key(got[i]), key(want[i])
	}
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
