package coordinator

import (
	"os"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/registry"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestStartedBeforeEgress: an egress decision the proxy makes before the
// backend reports pid 1 (the member connects at once) is written after
// started, not before (contract 1: started is a launch's first event);
// without a started event (the launch failed first) it is still written.
func TestStartedBeforeEgress(t *testing.T) {
	for _, c := range []struct {
		name  string
		ready bool
		fail  error
		want  []string
	}{
		{"ready", true, nil, []string{"started", "egress", "exited"}},
		{"never ready", false, os.ErrClosed, []string{"egress"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.native.ready, r.native.launchErr = false, c.fail
			r.native.during = func(p *policy.Plan, io backend.LaunchIO) {
				allowed := false
				r.proxies.events.Emit(Event{Event: "egress", ID: io.ID, Allowed: &allowed, Host: "denied.invalid", Port: 80})
				if c.ready {
					io.OnReady(backend.Started{ID: io.ID, Pid: os.Getpid(), Report: &policy.Report{}})
				}
			}
			r.run(t, policy.Spec{Access: policy.Access{Network: policy.NetworkSpec{Mode: "proxy"}}})
			var got []string
			for _, e := range events(t, r) {
				got = append(got, e.Event)
			}
			if len(got) != len(c.want) {
				t.Fatalf("events %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("events %q, want %q", got, c.want)
				}
			}
		})
	}
}

// TestWithin: a launch within a live sandbox runs only when narrower than
// its recorded plan (the wider field named), refuses an id that is not
// live, and is registered under it so that stop follows it.
func TestWithin(t *testing.T) {
	r := newRig(t)
	wide, narrow := t.TempDir(), t.TempDir()
	os.MkdirAll(narrow+"/sub", 0o755)
	parentPlan, err := policy.Resolve(policy.Spec{Command: []string{"sleep"}, Access: policy.Access{Write: []string{narrow}}}, r.l.Host)
	if err != nil {
		t.Fatal(err)
	}
	e, err := registry.NewEntry(parentPlan, "parent1") // this process is its owner: live
	if err != nil {
		t.Fatal(err)
	}
	if err := r.l.Registry.Register(e); err != nil {
		t.Fatal(err)
	}
	dead := e
	dead.ID, dead.OwnerStart = "dead1", e.OwnerStart+1
	r.l.Registry.Register(dead)
	for _, c := range []struct {
		name   string
		spec   policy.Spec
		field  string // "" runs
		status int
	}{
		{"narrower", policy.Spec{Within: "parent1", Access: policy.Access{Read: []string{narrow + "/sub"}, Write: []string{narrow}}}, "", 0},
		{"wider write", policy.Spec{Within: "parent1", Access: policy.Access{Read: []string{narrow}, Write: []string{wide}}}, "access.write[0]", 125},
		{"wider network", policy.Spec{Within: "parent1", Access: policy.Access{Network: policy.NetworkSpec{Mode: "proxy"}}}, "access.network", 125},
		{"more memory", policy.Spec{Within: "parent1", Limits: policy.LimitsSpec{Memory: "8GiB"}}, "limits.memory", 125},
		{"delegate", policy.Spec{Within: "parent1", Delegate: true}, "delegate", 125},
		{"view host", policy.Spec{Within: "parent1", View: "host"}, "view", 125},
		{"no such sandbox", policy.Spec{Within: "nosuch"}, "within", 125},
		{"owner gone", policy.Spec{Within: "dead1"}, "within", 125},
		{"bad id", policy.Spec{Within: "../x"}, "within", 125},
	} {
		t.Run(c.name, func(t *testing.T) {
			var entry registry.Entry
			r.native.during = func(p *policy.Plan, io backend.LaunchIO) { entry, _ = r.l.Registry.Get(io.ID) }
			_, err := r.run(t, c.spec)
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if entry.Parent != "parent1" || entry.Depth != 1 || !entry.Within {
					t.Errorf("child entry %+v: want parent parent1, depth 1, within", entry)
				}
				return
			}
			if policy.ExitCode(err) != c.status || policy.FieldOf(err) != c.field {
				t.Fatalf("err %v (exit %d, field %q), want exit %d field %s", err, policy.ExitCode(err), policy.FieldOf(err), c.status, c.field)
			}
		})
	}
	// The recorded plan holds no command or environment.
	got, _ := r.l.Registry.Get("parent1")
	if strings.Contains(string(got.Plan), "sleep") || strings.Contains(string(got.Plan), "PATH=") {
		t.Errorf("the registry's plan holds the command or environment: %s", got.Plan)
	}
}
