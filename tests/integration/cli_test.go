//go:build integration

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPlan: `acbox plan` prints the resolved plan as JSON, with the grant,
// and runs nothing.
func TestPlan(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w, r := fx.dir("w"), fx.dir("r")
		ran := filepath.Join(w, "ran")
		res := runBox(t, m, "plan", "--write", w, "--read", r, "--", "touch", ran)
		if res.code != 0 {
			t.Fatalf("%v", res)
		}
		var plan struct {
			Backend string   `json:"backend"`
			Command []string `json:"command"`
			UID     int      `json:"uid"`
			Home    string   `json:"home"`
			Grants  []struct {
				Path  string `json:"path"`
				Write bool   `json:"write"`
			} `json:"grants"`
			Network struct {
				Mode string `json:"mode"`
			} `json:"network"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &plan); err != nil {
			t.Fatalf("plan is not JSON: %v\n%s", err, res.stdout)
		}
		grants := map[string]bool{}
		for _, g := range plan.Grants {
			grants[g.Path] = g.Write
		}
		if wr, ok := grants[w]; !ok || !wr {
			t.Errorf("plan grants %v, want %s writable", plan.Grants, w)
		}
		if wr, ok := grants[r]; !ok || wr {
			t.Errorf("plan grants %v, want %s read-only", plan.Grants, r)
		}
		if plan.Backend != "native" || plan.Network.Mode != "none" || plan.UID != m.uid || plan.Home != m.home {
			t.Errorf("plan backend=%q network=%q uid=%d home=%q, want native, none, %d, %q",
				plan.Backend, plan.Network.Mode, plan.UID, plan.Home, m.uid, m.home)
		}
		if len(plan.Command) != 2 || plan.Command[0] != "touch" {
			t.Errorf("plan command = %q", plan.Command)
		}
		if _, err := os.Lstat(ran); err == nil {
			t.Errorf("acbox plan ran the command")
		}
	})
}

// TestStatus: `acbox status --json` says the native backend is available
// (this host runs every other test, so it must be).
func TestStatus(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		r := runBox(t, m, "status", "--json")
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		var st []struct {
			Backend   string `json:"backend"`
			Available bool   `json:"available"`
			Reason    string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("status is not a JSON list: %v\n%s", err, r.stdout)
		}
		for _, b := range st {
			if b.Backend == "native" {
				if !b.Available {
					t.Errorf("native is unavailable: %s", b.Reason)
				}
				return
			}
		}
		t.Errorf("status lists no native backend: %s", r.stdout)
	})
}

// TestDoctor: `acbox doctor --json` is stable (these names, in this
// order), passes on this host, and inside a sandbox (where namespaces are
// refused) fails the namespace and launch checks with a remedy each; the
// policy digest check holds there too.
func TestDoctor(t *testing.T) {
	names := []string{"policy digest", "user namespaces", "apparmor userns", "landlock", "seccomp", "proc", "pty", "cgroup delegation", "sandbox launch"}
	type check struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Remedy string `json:"remedy"`
	}
	parse := func(t *testing.T, out string) map[string]check {
		var cs []check
		if err := json.Unmarshal([]byte(out), &cs); err != nil || len(cs) != len(names) {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		byName := map[string]check{}
		for i, c := range cs {
			if c.Name != names[i] {
				t.Errorf("check %d is %q, want %q", i, c.Name, names[i])
			}
			if !c.OK && c.Remedy == "" {
				t.Errorf("%s failed without a remedy", c.Name)
			}
			byName[c.Name] = c
		}
		return byName
	}
	forEachMode(t, func(t *testing.T, m mode) {
		r := runBox(t, m, "doctor", "--json")
		for _, c := range parse(t, r.stdout) {
			if !c.OK {
				t.Errorf("%s fails on this host: %+v", c.Name, c)
			}
		}
		f := newFixture(t, m)
		w := f.dir("w")
		in := runBox(t, m, "run", "-w", w, "--mount", acboxBin+":"+w+"/acbox", "--", w+"/acbox", "doctor", "--json")
		cs := parse(t, in.stdout)
		if !cs["policy digest"].OK {
			t.Errorf("inside a sandbox the policy digest check failed:\n%s", in.stdout)
		}
		if cs["user namespaces"].OK || cs["sandbox launch"].OK {
			t.Errorf("inside a sandbox the namespace and launch checks passed:\n%s", in.stdout)
		}
	})
}
