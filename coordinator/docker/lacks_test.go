package docker

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

var _ backend.Backend = Backend{}

// TestUnsupportedPlansRefused: each plan this backend cannot honour is
// named by Lacks with its remedy, and Launch refuses it (a policy
// refusal, exit 125) before it talks to the daemon. Moved here from
// check_test.go when Lacks replaced the JSON round trip of the plan.
func TestUnsupportedPlansRefused(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(*policy.Plan)
	}{
		{"host view", "view host: the docker backend shows grants only", func(p *policy.Plan) { p.View = policy.ViewHost }},
		{"delegation", "nested launches", func(p *policy.Plan) { p.Delegate = true }},
		{"mask in a grant", "/srv/p/.ssh: a masked path lies inside /srv/p", func(p *policy.Plan) { p.Masks = []policy.Mask{{Path: "/srv/p/.ssh"}} }},
		{"mask in a mount", "/opt/tool/key: a masked path lies inside /opt/tool", func(p *policy.Plan) { p.Masks = []policy.Mask{{Path: "/opt/tool/key"}} }},
		{"host network", "--net host: the docker backend runs with network none only", func(p *policy.Plan) { p.Network.Mode = "host" }},
		{"native plan", `resolved for backend "native"`, func(p *policy.Plan) { p.Backend = "native" }},
	}
	for _, c := range cases {
		p := testSetup().plan
		c.edit(p)
		lacks := Backend{}.Lacks(p)
		if len(lacks) != 1 || !strings.Contains(lacks[0], c.want) {
			t.Errorf("%s: Lacks %q, want one naming %q", c.name, lacks, c.want)
		}
		if _, err := (Backend{}).Launch(p, backend.LaunchIO{}); !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Launch: %v, want the refusal %q", c.name, err, c.want)
		}
	}
	p := testSetup().plan
	p.View, p.Masks = policy.ViewGrants, []policy.Mask{{Path: "/home/u/.ssh"}}
	if lacks := (Backend{}).Lacks(p); len(lacks) != 0 {
		t.Errorf("grants view, mask outside every grant: %q", lacks)
	}
	if lacks := (Backend{}).Lacks(testSetup().plan); len(lacks) != 0 {
		t.Errorf("plain plan: %q", lacks)
	}
}

// planFields classifies every field of policy.Plan for this backend: how
// it is honoured, or why it is refused (Lacks) or has no effect in a
// container. The backend once read the plan back through its JSON to
// catch fields it did not know; this test does that at build time
// instead: a field added to the Plan fails it until someone decides here
// what the docker backend does with it.
var planFields = map[string]string{
	"Backend":        "Lacks: a plan resolved for another backend is refused",
	"Command":        "honoured: the member's argv after the init (spec.go)",
	"Cwd":            "honoured: the container's working directory",
	"UID":            "honoured: the container's user",
	"GID":            "honoured: the container's group",
	"User":           "honoured: in Env, which Resolve built from it",
	"Home":           "honoured: a tmpfs in Tmpfs and HOME in Env",
	"Hostname":       "honoured: the container's hostname",
	"System":         "no effect: the container's system directories are the image's",
	"Grants":         "honoured: binds, held by descriptor and verified through the gate",
	"Mounts":         "honoured: binds, like the grants",
	"Tmpfs":          "honoured: the container's tmpfs mounts",
	"Env":            "honoured: sent through the gate once the binds are verified",
	"listings":       "no effect in a container: the repository search's reads of the write grants, which the launcher's exit scan takes before the run (policy/listings.go); no backend sees them",
	"requester":      "no effect in a container: the requesting sandbox's plan, which Resolve judges a nested request's paths by (policy/requester.go); docker has no nested launches and no backend sees it",
	"AccessEnv":      "honoured: more names for ACBOX_ACCESS in the member's environment (env in spec.go)",
	"Network":        "honoured: none, or proxy through the relay; Lacks refuses host",
	"TTY":            "honoured: the container's tty",
	"Limits":         "honoured: memory (no swap) and pids limits",
	"BestEffort":     "no effect: every docker control is required; Landlock is not requested (report.go)",
	"Image":          "honoured: the container's image",
	"Labels":         "honoured: container labels",
	"Wait":           "no effect: admission waits before any backend is asked",
	"Delegate":       "Lacks: nested launches are refused",
	"Depth":          "no effect: the registry's bookkeeping of nested launches",
	"Parent":         "no effect: the registry's bookkeeping of nested launches",
	"Within":         "no effect: the registry's bookkeeping (a --within child is stopped through its own owner)",
	"View":           "Lacks: the host view is refused",
	"Masks":          "Lacks: a mask inside a grant or mount source is refused; others are moot (the image's files)",
	"Views":          "no effect: the native backend's directory snapshots for masks, which Lacks refuses where they matter",
	"Protected":      "honoured: carve-outs bound read-only onto themselves, with pins (spec.go)",
	"PersistedHome":  "honoured: it is also one of Mounts (a read-write bind at the home, held and checked at the start gate like every bind); the launcher locks it and the exit scan walks it",
	"ProtectMissing": "no effect: --protect paths that do not exist; nothing is mounted there",
	"BareRepos":      "honoured: their carve-outs are in Protected; the launcher's git discovery check walks each after the run (gitguard), whatever the backend",
	"EnclosingRepos": "honoured: the launcher's git discovery check walks each such grant after the run (gitguard), whatever the backend",
}

func TestEveryPlanFieldClassified(t *testing.T) {
	typ := reflect.TypeFor[policy.Plan]()
	seen := map[string]bool{}
	for f := range typ.Fields() {
		seen[f.Name] = true
		if planFields[f.Name] == "" {
			t.Errorf("policy.Plan.%s is not classified for the docker backend: honour it, refuse it in Lacks, or say in planFields why it has no effect in a container", f.Name)
		}
	}
	for name := range planFields {
		if !seen[name] {
			t.Errorf("planFields names %s, which policy.Plan no longer has", name)
		}
	}
}

// TestSignalOf: the exited event's signal on docker is read back from the
// 128+N status the init reports.
func TestSignalOf(t *testing.T) {
	for code, want := range map[int]int{0: 0, 1: 0, 127: 0, 128: 0, 129: 1, 137: 9, 143: 15, 192: 64, 193: 0, 255: 0} {
		if got := signalOf(code); got != want {
			t.Errorf("signalOf(%d) = %d, want %d", code, got, want)
		}
	}
}
