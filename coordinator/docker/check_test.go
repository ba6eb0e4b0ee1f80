package docker

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/egress"
)

func testSetup() *setup {
	p := &policy.Plan{
		Backend: "docker", Command: []string{"sh"}, Cwd: "/srv/p", UID: 1000, GID: 1000, Home: "/home/u", Hostname: "acbox",
		Grants: []policy.Grant{{Path: "/srv/p", Write: true}, {Path: "/srv/docs"}},
		Mounts: []policy.Mount{{Source: "/opt/tool", Target: "/opt/tool", Readonly: true, Kind: "dir"}},
		Tmpfs:  []policy.Tmpfs{{Target: "/tmp", Size: 512 << 20}, {Target: "/home/u", Size: 256 << 20}},
		Protected: []policy.Carveout{
			{Path: "/srv/p/.git", Grant: "/srv/p", Mode: policy.CarvePin, Kind: "dir", Dev: 1, Ino: 2},
			{Path: "/srv/p/.git/config", Grant: "/srv/p", Mode: policy.CarveReadOnly, Kind: "file", Dev: 1, Ino: 3},
			{Path: "/srv/p/.git/hooks", Grant: "/srv/p", Mode: policy.CarveReadOnly, Kind: "dir", Dev: 1, Ino: 4},
		},
		Env: []string{"PATH=/bin", "HOME=/home/u"}, Network: egress.Policy{Mode: egress.ModeProxy, Allow: []egress.Rule{}},
		Limits: policy.Limits{Memory: 2 << 30, Pids: 1024},
	}
	return newSetup(p, "abc", "img:1", "/usr/bin/acbox", "/run/g", "/run/acbox/x/proxy.sock", "tok", owner{pid: 7, start: "99", pidns: "pid:[1]"})
}

// asCreated is what a faithful daemon reports for s's request.
func asCreated(s *setup) engine.InspectResponse {
	cfg, hc := s.config()
	in := engine.InspectResponse{HostConfig: hc, State: &engine.State{}, Config: cfg,
		NetworkSettings: &engine.NetworkSettings{Networks: map[string]struct{}{"none": {}}}}
	for _, m := range s.binds {
		in.Mounts = append(in.Mounts, engine.MountPoint{Type: engine.MountTypeBind, Source: m.Source, Destination: m.Target, RW: !m.ReadOnly})
	}
	return in
}

func TestFaithfulContainerPasses(t *testing.T) {
	s := testSetup()
	if p := s.problems(asCreated(s), true); len(p) > 0 {
		t.Fatalf("problems with an unchanged container: %v", p)
	}
}

// TestTamperedContainerRefused changes one thing at a time, the way a
// daemon plugin, a wrapper or a bug could, and requires a named problem.
func TestTamperedContainerRefused(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name, want string
		tamper     func(*engine.InspectResponse)
	}{
		{"network host", "network mode", func(i *engine.InspectResponse) { i.HostConfig.NetworkMode = "host" }},
		{"published port", "ports are published", func(i *engine.InspectResponse) { i.HostConfig.PublishAllPorts = true }},
		{"exposed port", "ports are exposed", func(i *engine.InspectResponse) { i.Config.ExposedPorts = map[string]struct{}{"80/tcp": {}} }},
		{"privileged", "privileged", func(i *engine.InspectResponse) { i.HostConfig.Privileged = true }},
		{"cap add", "capabilities", func(i *engine.InspectResponse) { i.HostConfig.CapAdd = []string{"SYS_ADMIN"} }},
		{"cap drop partial", "capabilities", func(i *engine.InspectResponse) { i.HostConfig.CapDrop = []string{"NET_RAW"} }},
		{"seccomp unconfined", "security options", func(i *engine.InspectResponse) {
			i.HostConfig.SecurityOpt = append(i.HostConfig.SecurityOpt, "seccomp=unconfined")
		}},
		{"no nnp", "security options", func(i *engine.InspectResponse) { i.HostConfig.SecurityOpt = nil }},
		{"docker's seccomp profile", "security options", func(i *engine.InspectResponse) {
			i.HostConfig.SecurityOpt = []string{"no-new-privileges"}
		}},
		{"other seccomp profile", "security options", func(i *engine.InspectResponse) {
			i.HostConfig.SecurityOpt = []string{"no-new-privileges", "seccomp={}"}
		}},
		{"sys unmasked", "masked paths", func(i *engine.InspectResponse) {
			i.HostConfig.MaskedPaths = slices.DeleteFunc(slices.Clone(maskedPaths), func(p string) bool { return p == "/sys" })
		}},
		{"masks off", "masked paths", func(i *engine.InspectResponse) { i.HostConfig.MaskedPaths = nil }},
		{"proc sys writable", "read-only paths", func(i *engine.InspectResponse) { i.HostConfig.ReadonlyPaths = nil }},
		{"rw root", "writable", func(i *engine.InspectResponse) { i.HostConfig.ReadonlyRootfs = false }},
		{"pid host", "pid namespace", func(i *engine.InspectResponse) { i.HostConfig.PidMode = "host" }},
		{"ipc host", "ipc namespace", func(i *engine.InspectResponse) { i.HostConfig.IpcMode = "host" }},
		{"uts host", "uts namespace", func(i *engine.InspectResponse) { i.HostConfig.UTSMode = "host" }},
		{"userns host", "user namespace", func(i *engine.InspectResponse) { i.HostConfig.UsernsMode = "host" }},
		{"cgroupns host", "cgroup namespace", func(i *engine.InspectResponse) { i.HostConfig.CgroupnsMode = "host" }},
		{"device", "devices", func(i *engine.InspectResponse) {
			i.HostConfig.Devices = []engine.DeviceMapping{{PathOnHost: "/dev/sda"}}
		}},
		{"gpu", "devices", func(i *engine.InspectResponse) {
			i.HostConfig.DeviceRequests = []engine.DeviceRequest{{Count: -1}}
		}},
		{"group", "groups", func(i *engine.InspectResponse) { i.HostConfig.GroupAdd = []string{"docker"} }},
		{"volumes-from", "volumes-from", func(i *engine.InspectResponse) { i.HostConfig.VolumesFrom = []string{"other"} }},
		{"image volume", "volumes are declared", func(i *engine.InspectResponse) { i.Config.Volumes = map[string]struct{}{"/data": {}} }},
		{"extra mount", "mounts", func(i *engine.InspectResponse) {
			i.Mounts = append(i.Mounts, engine.MountPoint{Type: engine.MountTypeBind, Source: "/var/run/docker.sock", Destination: "/var/run/docker.sock", RW: true})
		}},
		{"ro grant made rw", "unexpected mount", func(i *engine.InspectResponse) { i.Mounts[1].RW = true }},
		{"mount source moved", "unexpected mount", func(i *engine.InspectResponse) { i.Mounts[0].Source = "/etc" }},
		{"volume type", "unexpected mount", func(i *engine.InspectResponse) { i.Mounts[0].Type = engine.MountTypeVolume }},
		{"request mount changed", "requested mounts", func(i *engine.InspectResponse) { i.HostConfig.Mounts[0].ReadOnly = !i.HostConfig.Mounts[0].ReadOnly }},
		{"hooks carve-out missing", "mount at /srv/p/.git/hooks is missing", func(i *engine.InspectResponse) { dropMount(i, "/srv/p/.git/hooks") }},
		{"pin missing", "mount at /srv/p/.git is missing", func(i *engine.InspectResponse) { dropMount(i, "/srv/p/.git") }},
		{"hooks carve-out not requested", "requested mounts", func(i *engine.InspectResponse) {
			i.HostConfig.Mounts = slices.DeleteFunc(i.HostConfig.Mounts, func(m engine.Mount) bool { return m.Target == "/srv/p/.git/hooks" })
		}},
		{"config carve-out writable", "unexpected mount bind /srv/p/.git/config", func(i *engine.InspectResponse) { mountAt(i, "/srv/p/.git/config").RW = true }},
		{"config carve-out request writable", "requested mounts", func(i *engine.InspectResponse) {
			i.HostConfig.Mounts[slices.IndexFunc(i.HostConfig.Mounts, func(m engine.Mount) bool { return m.Target == "/srv/p/.git/config" })].ReadOnly = false
		}},
		{"hooks carve-out from elsewhere", "unexpected mount", func(i *engine.InspectResponse) { mountAt(i, "/srv/p/.git/hooks").Source = "/srv/p/hooks" }},
		{"pin made read-only", "unexpected mount", func(i *engine.InspectResponse) { mountAt(i, "/srv/p/.git").RW = false }},
		{"tmpfs added", "tmpfs", func(i *engine.InspectResponse) { i.HostConfig.Tmpfs = map[string]string{"/tmp": "", "/x": ""} }},
		{"tmpfs options", "tmpfs", func(i *engine.InspectResponse) { i.HostConfig.Tmpfs["/tmp"] = "rw,exec" }},
		{"user root", "user", func(i *engine.InspectResponse) { i.Config.User = "0:0" }},
		{"memory", "memory limit", func(i *engine.InspectResponse) { i.HostConfig.Memory = 0 }},
		{"swap", "memory+swap", func(i *engine.InspectResponse) { i.HostConfig.MemorySwap = -1 }},
		{"pids", "pids limit", func(i *engine.InspectResponse) { i.HostConfig.PidsLimit = nil }},
		{"oom", "OOM", func(i *engine.InspectResponse) { i.HostConfig.OomKillDisable = &yes }},
		{"restart", "restart policy", func(i *engine.InspectResponse) { i.HostConfig.RestartPolicy.Name = "always" }},
		{"log driver", "log driver", func(i *engine.InspectResponse) { i.HostConfig.LogConfig.Type = "json-file" }},
		{"no init", "init", func(i *engine.InspectResponse) { i.HostConfig.Init = &no }},
		{"no autoremove", "auto-remove", func(i *engine.InspectResponse) { i.HostConfig.AutoRemove = false }},
		{"command", "entrypoint", func(i *engine.InspectResponse) { i.Config.Cmd = []string{"sh"} }},
		{"label", "label acbox.owner.pid", func(i *engine.InspectResponse) { i.Config.Labels[LabelOwnerPid] = "1" }},
		{"env", "environment", func(i *engine.InspectResponse) { i.Config.Env = nil }},
		{"bound port after start", "ports are bound", func(i *engine.InspectResponse) {
			i.NetworkSettings.Ports = map[string][]engine.PortBinding{"80/tcp": nil}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testSetup()
			in := asCreated(s)
			c.tamper(&in)
			p := strings.Join(s.problems(in, true), "; ")
			if !strings.Contains(p, c.want) {
				t.Errorf("problems %q; want one mentioning %q", p, c.want)
			}
		})
	}
}

// mountAt is the daemon's record of the mount at target.
func mountAt(i *engine.InspectResponse, target string) *engine.MountPoint {
	return &i.Mounts[slices.IndexFunc(i.Mounts, func(m engine.MountPoint) bool { return m.Destination == target })]
}

// dropMount removes the mount at target from the request and the daemon's
// mount list, as a daemon that ignored it would report.
func dropMount(i *engine.InspectResponse, target string) {
	i.Mounts = slices.DeleteFunc(i.Mounts, func(m engine.MountPoint) bool { return m.Destination == target })
	i.HostConfig.Mounts = slices.DeleteFunc(i.HostConfig.Mounts, func(m engine.Mount) bool { return m.Target == target })
}

// TestCarveoutBinds: each carve-out is a non-recursive bind onto itself,
// read-only or (a pin) read-write, and every one is held and stat'ed by
// the gate.
func TestCarveoutBinds(t *testing.T) {
	s := testSetup()
	_, hc := s.config()
	want := map[string]bool{"/srv/p/.git": false, "/srv/p/.git/config": true, "/srv/p/.git/hooks": true}
	for _, m := range hc.Mounts {
		ro, ok := want[m.Target]
		if !ok {
			continue
		}
		delete(want, m.Target)
		if m.Source != m.Target || m.ReadOnly != ro || m.Type != engine.MountTypeBind || !m.BindOptions.NonRecursive {
			t.Errorf("carve-out bind %+v %+v; want onto itself, read-only %v, non-recursive", m, m.BindOptions, ro)
		}
	}
	if len(want) > 0 {
		t.Errorf("carve-outs not bound: %v", want)
	}
	for _, p := range []string{"/srv/p/.git", "/srv/p/.git/config", "/srv/p/.git/hooks"} {
		if !slices.Contains(s.bindTargets(), p) {
			t.Errorf("the gate does not check %s", p)
		}
	}
}

func TestConfigShape(t *testing.T) {
	s := testSetup()
	cfg, hc := s.config()
	if cfg.User != "1000:1000" || hc.NetworkMode != "none" || !hc.ReadonlyRootfs || hc.MemorySwap != hc.Memory {
		t.Fatalf("config: user %q network %q ro %v swap %d", cfg.User, hc.NetworkMode, hc.ReadonlyRootfs, hc.MemorySwap)
	}
	want := "rw,exec,nosuid,nodev,size=268435456,uid=1000,gid=1000,mode=700"
	if hc.Tmpfs["/home/u"] != want || !strings.HasSuffix(hc.Tmpfs["/tmp"], "mode=1777") {
		t.Errorf("tmpfs %v", hc.Tmpfs)
	}
	last := cfg.Cmd[len(cfg.Cmd)-2:]
	if last[0] != "--" || last[1] != "sh" || !strings.Contains(strings.Join(cfg.Cmd, " "), "--proxy /.acbox/proxy/proxy.sock") {
		t.Errorf("cmd %v", cfg.Cmd)
	}
}

// TestRealTamperedInspectionRefused reads a real Docker 20.10 daemon's
// answers (engine/testdata) through the engine types and requires every
// refused setting to be named: a field the types failed to decode would
// let its check pass unseen.
func TestRealTamperedInspectionRefused(t *testing.T) {
	want := map[string][]string{
		"engine/testdata/inspect-tampered.json": {"network mode", "ports are published", "privileged", "capabilities",
			"security options", "masked paths", "read-only paths", "pid namespace", "ipc namespace", "uts namespace",
			"user namespace", "cgroup namespace", "devices are added", "supplementary groups", "volumes-from, binds",
			"links or sysctls", "restart policy", "log driver", "auto-remove", "tmpfs", "memory limit", "pids limit",
			"OOM killer", "cgroup parent", "user is", "ports are exposed", "volumes are declared", "entrypoint",
			"working directory", "unexpected mount", "requested mounts"},
		"engine/testdata/inspect-running.json": {"ports are bound after start"},
	}
	for file, problems := range want {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var in engine.InspectResponse
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		got := strings.Join(testSetup().problems(in, true), "; ")
		for _, p := range problems {
			if !strings.Contains(got, p) {
				t.Errorf("%s: no problem mentions %q; problems: %s", file, p, got)
			}
		}
	}
}
