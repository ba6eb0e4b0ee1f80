package coordinator

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/egress"
)

// TestNestedLaunch: a delegating member asks the broker (through Nested,
// as `acbox run` inside does) for a child; the child runs through the same
// launcher, one level deeper, its events reach both the requester and
// the outer stream, and its report comes back. A wider child is refused
// with the refusal's exit status.
func TestNestedLaunch(t *testing.T) {
	r := newRig(t)
	r.l.Exe = "/bin/true"
	ids := []string{"parent", "child", "wide"}
	r.l.NewID = func() string { id := ids[0]; ids = ids[1:]; return id }
	var code int
	var childEvents strings.Builder
	var gotReport bool
	r.native.during = func(p *policy.Plan, io backend.LaunchIO) {
		if p.Depth > 0 {
			return
		}
		sock := ""
		for _, m := range p.Mounts {
			if m.Target == policy.DelegateSocket {
				sock = m.Source
			}
		}
		child := policy.Spec{Command: []string{"true"}, PassEnv: []string{"HOME"}}
		var err error
		code, err = Nested(sock, child, r.stdio, NewEvents(&childEvents), func(*policy.Report, json.RawMessage) error {
			gotReport = true
			return nil
		})
		if err != nil {
			t.Errorf("nested launch: %v", err)
		}
		wide := policy.Spec{Command: []string{"true"}, Access: policy.Access{Write: []string{t.TempDir()}}}
		_, err = Nested(sock, wide, r.stdio, nil, nil)
		if be, ok := err.(*BrokerError); !ok || be.Code != policy.ExitRefused {
			t.Errorf("a wider child: %v", err)
		}
	}
	if _, err := r.run(t, policy.Spec{Delegate: true}); err != nil {
		t.Fatal(err)
	}
	if code != 0 || !gotReport || len(r.native.plans) != 2 || r.native.plans[1].Depth != 1 || r.native.plans[1].Parent != "parent" {
		t.Fatalf("child: exit %d, report %v, plans %d", code, gotReport, len(r.native.plans))
	}
	if !strings.Contains(childEvents.String(), `"id":"child"`) || !strings.Contains(r.events.String(), `"id":"child"`) {
		t.Errorf("child events: requester %q, outer %q", childEvents.String(), r.events.String())
	}
	r.gone(t, "parent")
	r.gone(t, "child")
}

// TestStopAndGC: stop signals the owner through a pidfd and removes the
// entry; gc removes a dead owner's entry and asks every backend to clean.
func TestStopAndGC(t *testing.T) {
	r := newRig(t)
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skip(err)
	}
	go sleep.Wait()
	e, err := registry.NewEntry(&policy.Plan{Backend: "native"}, "victim")
	if err != nil {
		t.Fatal(err)
	}
	e.OwnerPid = sleep.Process.Pid
	if e.OwnerStart, err = registry.ProcStart(e.OwnerPid); err != nil {
		t.Fatal(err)
	}
	if err := r.l.Registry.Register(e); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := r.l.Stop(t.Context(), "victim", 2*time.Second, &out); err != nil || out.String() != "victim stopped (SIGTERM)\n" {
		t.Fatalf("stop: %q, %v", out.String(), err)
	}
	if err := r.l.Stop(t.Context(), "victim", time.Second, &out); policy.ExitCode(err) != policy.ExitUsage {
		t.Errorf("stopping an unknown sandbox: %v", err)
	}
	dead := e
	dead.ID, dead.OwnerPid = "dead", deadPid(t)
	if err := r.l.Registry.Register(dead); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(r.l.Registry.RunDir("dead"), 0o700)
	r.docker.cleaned, r.docker.cleanErr = nil, os.ErrDeadlineExceeded
	r.native.cleaned = []string{"/sys/fs/cgroup/acbox-dead"}
	out.Reset()
	if err := r.l.GC(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"removed sandbox dead (native, owner", "removed /sys/fs/cgroup/acbox-dead", "docker: leftovers not checked: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("gc printed %q, want %q", out.String(), want)
		}
	}
}

// TestEgressProxies: the proxy of a proxy-mode plan listens on a 0600
// socket in the run directory; a plan in another mode gets none.
func TestEgressProxies(t *testing.T) {
	dir := t.TempDir()
	p, err := EgressProxies{}.Start(&policy.Plan{Network: egress.Policy{Mode: egress.ModeProxy, Allow: []egress.Rule{mustRule(t, "example.com:443")}}}, "id", dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	fi, err := os.Stat(p.Socket())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s: %v %v", p.Socket(), fi, err)
	}
	if p, err := (EgressProxies{}).Start(&policy.Plan{Network: egress.Policy{Mode: egress.ModeNone}}, "id", dir, nil, nil); p != nil || err != nil {
		t.Errorf("a proxy for network none: %v %v", p, err)
	}
}

func mustRule(t *testing.T, s string) egress.Rule {
	r, err := egress.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
