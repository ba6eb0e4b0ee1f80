package coordinator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// TestRunSuccess: a launch goes through every step in order, the plan the
// backend saw is the plan it ran with (never changed after), the checks
// after the run finish, the events are started then exited, and the
// cleanup stack undoes everything in reverse: the proxy stops while the
// registry entry and the run directory (made for the proxy's socket)
// still exist.
func TestRunSuccess(t *testing.T) {
	r := newRig(t)
	r.checks.moved = []string{"/g/commondir"}
	r.native.code = 3
	r.proxies.check = func() {
		if _, err := r.l.Registry.Get("sandbox1"); err != nil {
			t.Errorf("admission released before the proxy stopped: %v", err)
		}
		if _, err := os.Stat(r.l.Registry.RunDir("sandbox1")); err != nil {
			t.Errorf("run directory removed before the proxy stopped: %v", err)
		}
	}
	res, err := r.run(t, policy.Spec{Access: policy.Access{Network: policy.NetworkSpec{Mode: "proxy"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 3 || !reflect.DeepEqual(res.GitRedirects, []string{"/g/commondir"}) {
		t.Errorf("outcome %+v", res.Outcome)
	}
	want := []string{"scan.begin", "proxy.start", "git.watch", "native.launch", "git.quarantine", "scan.finish", "proxy.stop"}
	if !reflect.DeepEqual(r.j.lines, want) {
		t.Errorf("steps %q, want %q", r.j.lines, want)
	}
	p := r.native.plans[0]
	if p.Backend != "native" || string(p.JSON()) != r.native.planJSON[0] {
		t.Errorf("the plan changed after the launch began")
	}
	ev := events(t, r)
	if len(ev) != 2 || ev[0].Event != "started" || ev[0].Backend != "native" || ev[0].ID != "sandbox1" ||
		ev[1].Event != "exited" || *ev[1].Code != 3 {
		t.Errorf("events %+v", ev)
	}
	if len(ev) == 2 && (ev[1].ExitScan == nil || !reflect.DeepEqual(ev[1].ExitScan.GitRedirects, res.Scan.GitRedirects)) {
		t.Errorf("exited carries exit scan %+v, want the report's %+v", ev[1].ExitScan, res.Scan)
	}
	r.gone(t, "sandbox1")
}

func events(t *testing.T, r *rig) []Event {
	t.Helper()
	var out []Event
	for _, l := range strings.Split(strings.TrimSpace(r.events.String()), "\n") {
		if l == "" {
			continue
		}
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// TestRunFailures: each way a launch can fail, with the exit status it
// maps to, whether the checks after the run ran (they must whenever the
// backend was asked to start the member), and that nothing is left.
func TestRunFailures(t *testing.T) {
	boom := fmt.Errorf("%w: boom", policy.ErrCannotSandbox)
	unchecked := fmt.Errorf("%w: a path", policy.ErrUnchecked)
	cases := []struct {
		name     string
		set      func(r *rig)
		spec     policy.Spec
		code     int
		after    bool   // checks after the run ran
		started  bool   // a started event
		exited   bool   // an exited event (the member ran to its end)
		contains string // in the error
	}{
		{name: "invalid spec", spec: policy.Spec{Backend: "vm"}, code: policy.ExitUsage, contains: "backend"},
		{name: "narrowing refuses", set: func(r *rig) {}, spec: policy.Spec{Labels: map[string]string{"refuse": "1"}}, code: policy.ExitRefused},
		{name: "scan cannot begin", set: func(r *rig) { r.checks.beginErr = boom }, code: policy.ExitCannotSandbox},
		{name: "backend not in build", set: func(r *rig) { r.l.Backends = []backend.Backend{r.docker} }, code: policy.ExitCannotSandbox, contains: "not available in this build"},
		{name: "backend lacks", set: func(r *rig) { r.native.lacks = []string{"view host: no", "masks: no"} }, code: policy.ExitRefused, contains: "view host: no; masks: no"},
		{name: "live fails", set: func(r *rig) { r.native.liveErr = boom }, code: policy.ExitCannotSandbox, contains: "counting the host's live native sandboxes"},
		{name: "proxy fails", set: func(r *rig) { r.proxies.err = boom }, code: policy.ExitCannotSandbox},
		{name: "git refuses", set: func(r *rig) { r.checks.gitErr = &policy.RefusedError{Subject: "repo", Why: "too large"} }, code: policy.ExitRefused},
		{name: "launch fails after ready", set: func(r *rig) { r.native.launchErr = boom }, code: policy.ExitCannotSandbox, after: true, started: true},
		{name: "launch fails before ready", set: func(r *rig) { r.native.launchErr, r.native.ready = boom, false }, code: policy.ExitCannotSandbox, after: true},
		{name: "unchecked after exit", set: func(r *rig) { r.checks.finErr = unchecked }, code: policy.ExitUnchecked, after: true, started: true, exited: true},
		{name: "unchecked and failed", set: func(r *rig) { r.checks.finErr, r.native.launchErr = unchecked, boom }, code: policy.ExitUnchecked, after: true, started: true, contains: "the launch had failed too"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			if c.set != nil {
				c.set(r)
			}
			req := Request{Spec: c.spec, Stdio: r.stdio, Check: func(p *policy.Plan) error {
				if p.Labels["refuse"] != "" {
					return &policy.RefusedError{Subject: "label", Why: "refused"}
				}
				return nil
			}}
			if req.Spec.Command == nil {
				req.Spec.Command = []string{"true"}
			}
			res, err := r.l.Run(t.Context(), req)
			if err == nil || policy.ExitCode(err) != c.code || !strings.Contains(err.Error(), c.contains) {
				t.Fatalf("err %v (exit %d), want exit %d containing %q", err, policy.ExitCode(err), c.code, c.contains)
			}
			if got := r.j.has("scan.finish"); got != c.after {
				t.Errorf("checks after the run ran: %v, want %v", got, c.after)
			}
			if c.after && (res == nil || res.Scan == nil) {
				t.Errorf("no exit scan in the result of a launch that started")
			}
			if r.j.has("proxy.start") && !r.j.has("proxy.stop") {
				t.Errorf("proxy started and not stopped")
			}
			ev := events(t, r)
			if got := len(ev) > 0 && ev[0].Event == "started"; got != c.started {
				t.Errorf("events %+v", ev)
			}
			// The member's outcome comes whenever the member ran to its end,
			// also when a check after the run then fails (contract 1: exited,
			// then the refusal); never when the launch itself failed.
			exited := 0
			for _, e := range ev {
				if e.Event == "exited" {
					exited++
					if e.ExitScan == nil {
						t.Errorf("exited without the exit scan")
					}
				}
			}
			if want := map[bool]int{true: 1}[c.exited]; exited != want {
				t.Errorf("%d exited events, want %d: %+v", exited, want, ev)
			}
			r.gone(t, "sandbox1")
		})
	}
}

// TestChooseBackend: "auto" becomes native when it is available, else
// docker, before the plan is resolved: the plan names the backend it ran
// on and the caller's spec is untouched.
func TestChooseBackend(t *testing.T) {
	cases := []struct {
		spec, want string
		nativeUp   bool
		asked      bool // native's availability was asked
	}{
		{"auto", "native", true, true},
		{"auto", "docker", false, true},
		{"native", "native", false, false},
		{"", "native", false, false},
		{"docker", "docker", true, false},
	}
	for _, c := range cases {
		t.Run(c.spec+"/"+c.want, func(t *testing.T) {
			r := newRig(t)
			r.native.avail = c.nativeUp
			spec := policy.Spec{Backend: c.spec, Command: []string{"true"}}
			if _, err := r.l.Run(t.Context(), Request{Spec: spec, Stdio: r.stdio}); err != nil {
				t.Fatal(err)
			}
			b := map[string]*fakeBackend{"native": r.native, "docker": r.docker}[c.want]
			if len(b.plans) != 1 || b.plans[0].Backend != c.want {
				t.Fatalf("%s did not run a %s plan", c.want, c.want)
			}
			if got := r.j.has("native.available"); got != c.asked {
				t.Errorf("availability asked: %v", got)
			}
			if spec.Backend != c.spec {
				t.Errorf("the caller's spec changed")
			}
		})
	}
}

// TestAdmission: a launch over the cap is refused before anything runs;
// a dead owner's entry is reaped on the way, through its backend's
// Cleanup; the backend's live sandboxes count.
func TestAdmission(t *testing.T) {
	r := newRig(t)
	r.l.Host.MaxSandboxes = 1
	e, err := registry.NewEntry(&policy.Plan{Backend: "native"}, "other")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.l.Registry.Register(e); err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(t, policy.Spec{}); policy.ExitCode(err) != policy.ExitRefused {
		t.Fatalf("over the cap: %v", err)
	}
	if r.j.has("native.launch") || r.j.has("scan.finish") {
		t.Errorf("a refused launch ran: %q", r.j.lines)
	}
	r.gone(t, "sandbox1")

	r = newRig(t)
	r.l.Host.MaxSandboxes = 2
	r.docker.live = []string{"x", "y"}
	if _, err := r.run(t, policy.Spec{Backend: "docker"}); policy.ExitCode(err) != policy.ExitRefused {
		t.Fatalf("foreign live sandboxes not counted: %v", err)
	}

	r = newRig(t)
	dead := e
	dead.ID, dead.OwnerPid, dead.Backend = "dead", deadPid(t), "docker"
	if err := r.l.Registry.Register(dead); err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(t, policy.Spec{}); err != nil {
		t.Fatal(err)
	}
	if !r.j.has("docker.cleanup") || r.j.has("native.cleanup") {
		t.Errorf("the dead entry's backend was not asked to clean up: %q", r.j.lines)
	}
}

// deadPid is the pid of a process that has exited.
func deadPid(t *testing.T) int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip(err)
	}
	p.Wait()
	return p.Pid
}

// TestCleanup: steps run last first, once; Release disarms and hands
// them on.
func TestCleanup(t *testing.T) {
	var got []int
	var c Cleanup
	for i := range 3 {
		c.Add(func() { got = append(got, i) })
	}
	c.Clean()
	c.Clean()
	if !reflect.DeepEqual(got, []int{2, 1, 0}) {
		t.Errorf("ran %v", got)
	}
	got = nil
	c.Add(func() { got = append(got, 9) })
	later := c.Release()
	c.Clean()
	if got != nil {
		t.Errorf("released steps ran: %v", got)
	}
	later()
	if !reflect.DeepEqual(got, []int{9}) {
		t.Errorf("handed-on steps: %v", got)
	}
}

func TestFirstError(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	if err := firstError([]error{nil, a, nil, b}); !errors.Is(err, a) || err.Error() != "a; and b" {
		t.Errorf("%v", err)
	}
	if firstError([]error{nil, nil}) != nil {
		t.Errorf("nil errors made one")
	}
}

// TestRunDirOnlyForSockets: a launch that keeps no socket in its run
// directory (no proxy, no broker) never makes one; the backend is still
// told where it would be, and the registry removes one the backend made.
func TestRunDirOnlyForSockets(t *testing.T) {
	r := newRig(t)
	var made string
	r.native.during = func(p *policy.Plan, io backend.LaunchIO) {
		if _, err := os.Stat(io.RunDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run directory %s made for a launch without a socket: %v", io.RunDir, err)
		}
		if io.RunDir != r.l.Registry.RunDir("sandbox1") {
			t.Errorf("backend told run directory %q, want %q", io.RunDir, r.l.Registry.RunDir("sandbox1"))
		}
		made = io.RunDir
		if err := os.MkdirAll(made, 0o700); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.run(t, policy.Spec{}); err != nil {
		t.Fatal(err)
	}
	if made == "" {
		t.Fatal("the backend never ran")
	}
	r.gone(t, "sandbox1")
}
