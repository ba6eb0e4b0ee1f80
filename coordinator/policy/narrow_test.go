package policy

import (
	"strings"
	"testing"

	"github.com/acbox/acbox/egress"
)

// allow parses allow-list entries as Resolve does.
func allow(entries ...string) []egress.Rule {
	rules := []egress.Rule{}
	for _, e := range entries {
		r, err := egress.ParseRule(e)
		if err != nil {
			panic(err)
		}
		rules = append(rules, r)
	}
	return rules
}

func TestNarrower(t *testing.T) {
	parent := &Plan{
		Grants:  []Grant{{Path: "/repo", Write: true}, {Path: "/docs"}},
		Mounts:  []Mount{{Source: "/opt/pi", Target: "/opt/pi", Readonly: true}, {Source: "/srv/decoy", Target: "/opt/pi-target", Readonly: true}},
		Network: egress.Policy{Mode: "proxy", Allow: allow("api.example.com", "*.example.org:8443")},
		View:    ViewGrants,
		Masks:   []Mask{{Path: "/repo/.env", Why: "--exclude"}},
		Limits:  Limits{Memory: 1 << 30, Pids: 100},
	}

	cases := []struct {
		name  string
		child Plan
		want  string
	}{
		{"same", Plan{Grants: parent.Grants, Masks: parent.Masks, Network: parent.Network}, ""},
		{"sub write", Plan{Grants: []Grant{{Path: "/repo/sub", Write: true}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"read inside write", Plan{Grants: []Grant{{Path: "/repo/x"}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"read inside read", Plan{Grants: []Grant{{Path: "/docs/a"}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"write inside read", Plan{Grants: []Grant{{Path: "/docs/a", Write: true}}, Network: egress.Policy{Mode: "none"}}, "/docs/a: a nested write grant"},
		{"outside", Plan{Grants: []Grant{{Path: "/etc"}}, Network: egress.Policy{Mode: "none"}}, "/etc: a nested read grant"},
		{"prefix trick", Plan{Grants: []Grant{{Path: "/repository"}}, Network: egress.Policy{Mode: "none"}}, "/repository"},
		{"remount ro", Plan{Mounts: []Mount{{Source: "/opt/pi", Target: "/x", Readonly: true}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"remount rw", Plan{Mounts: []Mount{{Source: "/opt/pi", Target: "/x"}}, Network: egress.Policy{Mode: "none"}}, "/opt/pi"},
		{"mount foreign", Plan{Mounts: []Mount{{Source: "/var/run/docker.sock", Target: "/s"}}, Network: egress.Policy{Mode: "none"}}, "docker.sock"},
		{"host net", Plan{Network: egress.Policy{Mode: "host"}}, "network"},
		{"any public", Plan{Network: egress.Policy{Mode: "proxy", AllowAny: true}}, "network"},
		{"other host", Plan{Network: egress.Policy{Mode: "proxy", Allow: allow("evil.example")}}, "evil.example"},
		{"subset hosts", Plan{Network: egress.Policy{Mode: "proxy", Allow: allow("a.example.org:8443")}}, ""},
		{"best effort", Plan{BestEffort: true, Network: egress.Policy{Mode: "none"}}, "best_effort"},
		{"internal delegation mount", Plan{Mounts: []Mount{{Source: "/usr/local/bin/acbox", Target: DelegateBin, Readonly: true, Internal: true}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"spec mount at the delegation target", Plan{Mounts: []Mount{{Source: "/etc", Target: DelegateDir + "/w"}}, Network: egress.Policy{Mode: "none"}}, "/etc"},
		{"host view from a grants view", Plan{View: ViewHost, Network: egress.Policy{Mode: "none"}}, "view"},
		{"grant shows a masked path", Plan{Grants: []Grant{{Path: "/repo"}}, Network: egress.Policy{Mode: "none"}}, "/repo/.env"},
		{"grant keeps the mask", Plan{Grants: []Grant{{Path: "/repo"}}, Masks: []Mask{{Path: "/repo/.env"}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"more memory", Plan{Limits: Limits{Memory: 8 << 30, Pids: 10}, Network: egress.Policy{Mode: "none"}}, "limits.memory"},
		{"rw mount of a write grant", Plan{Mounts: []Mount{{Source: "/repo", Target: "/z"}}, Network: egress.Policy{Mode: "none"}}, "read-only"},
		{"ro mount of a write grant", Plan{Mounts: []Mount{{Source: "/repo/src", Target: "/z", Readonly: true}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"mount shows a mask", Plan{Mounts: []Mount{{Source: "/repo", Target: "/z", Readonly: true}}, Network: egress.Policy{Mode: "none"}}, "/repo/.env"},
		{"mount under the requester's mount target, other host path", Plan{Mounts: []Mount{{Source: "/opt/pi-target/x", Target: "/x", Readonly: true}}, Network: egress.Policy{Mode: "none"}}, "/opt/pi-target/x"},
		{"more processes", Plan{Limits: Limits{Memory: 1 << 20, Pids: 4096}, Network: egress.Policy{Mode: "none"}}, "limits.pids"},
		{"tmpfs within the requester's memory", Plan{Tmpfs: []Tmpfs{{"/tmp", 512 << 20}, {"/home/u", 256 << 20}}, Network: egress.Policy{Mode: "none"}}, ""},
		{"tmpfs beyond the requester's memory", Plan{Tmpfs: []Tmpfs{{"/tmp", 256 << 20}, {"/big", 64 << 30}}, Network: egress.Policy{Mode: "none"}}, "count against the requester's memory limit"},
		{"tmpfs just over", Plan{Tmpfs: []Tmpfs{{"/tmp", 1<<30 - DevShmSize + 1}}, Network: egress.Policy{Mode: "none"}}, "/tmp"},
		{"tmpfs unlimited", Plan{Tmpfs: []Tmpfs{{"/big", 0}}, Network: egress.Policy{Mode: "none"}}, "/big: tmpfs size 0"},
		{"tmpfs within a lower own limit but not the requester's", Plan{Limits: Limits{Memory: 4 << 30, Pids: 10}, Tmpfs: []Tmpfs{{"/big", 2 << 30}}, Network: egress.Policy{Mode: "none"}}, "limits.memory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.child.Limits == (Limits{}) {
				c.child.Limits = parent.Limits
			}
			err := Narrower(&c.child, parent)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestNarrowerHostView: under a requester with the host view, a child may
// have it too but must keep every mask it could see through.
func TestNarrowerHostView(t *testing.T) {
	parent := &Plan{View: ViewHost, Masks: []Mask{{Path: "/home/u/.ssh", Why: "credentials"}},
		Network: egress.Policy{Mode: "none"}, Limits: Limits{Memory: 1 << 30, Pids: 1}}
	ok := &Plan{View: ViewHost, Masks: parent.Masks, Network: egress.Policy{Mode: "none"}, Limits: parent.Limits}
	if err := Narrower(ok, parent); err != nil {
		t.Fatalf("same view and masks refused: %v", err)
	}
	open := &Plan{View: ViewHost, Network: egress.Policy{Mode: "none"}, Limits: parent.Limits}
	if err := Narrower(open, parent); err == nil || !strings.Contains(err.Error(), "/home/u/.ssh") {
		t.Fatalf("a child without the requester's mask: %v", err)
	}
}

// TestNarrowerHostPorts: under a --net host requester a child may list
// only ports the requester lists.
func TestNarrowerHostPorts(t *testing.T) {
	parent := &Plan{Network: egress.Policy{Mode: "host", ConnectPorts: []uint16{443}, BindPorts: []uint16{8080}}, Limits: Limits{Memory: 1 << 30, Pids: 1}}
	for _, c := range []struct {
		child egress.Policy
		want  string
	}{
		{egress.Policy{Mode: "host", ConnectPorts: []uint16{443}}, ""},
		{egress.Policy{Mode: "host", ConnectPorts: []uint16{443, 22}}, "--connect-port 22"},
		{egress.Policy{Mode: "host", BindPorts: []uint16{8081}}, "--bind-port 8081"},
		{egress.Policy{Mode: "none"}, ""},
	} {
		err := Narrower(&Plan{Network: c.child, Limits: parent.Limits}, parent)
		checkErr(t, err, c.want)
	}
}

// TestNarrowerBackend: a nested child runs on its requester's backend. A
// docker child of a native requester ran without the requester's Landlock
// and user namespace: a downgrade the requester's launcher did not choose.
func TestNarrowerBackend(t *testing.T) {
	cases := []struct{ parent, child, want string }{
		{"native", "native", ""},
		{"docker", "docker", ""},
		{"native", "docker", "the requester runs on the native backend"},
		{"docker", "native", "the requester runs on the docker backend"},
	}
	for _, c := range cases {
		t.Run(c.parent+"/"+c.child, func(t *testing.T) {
			net := egress.Policy{Mode: "none"}
			parent := &Plan{Backend: c.parent, View: ViewGrants, Network: net, Limits: Limits{Memory: 1 << 30, Pids: 100}}
			child := &Plan{Backend: c.child, View: ViewGrants, Network: net, Limits: parent.Limits}
			err := Narrower(child, parent)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if FieldOf(err) != "backend" || ExitCode(err) != ExitRefused {
				t.Errorf("field %q, exit %d: want field backend, exit %d", FieldOf(err), ExitCode(err), ExitRefused)
			}
		})
	}
}
