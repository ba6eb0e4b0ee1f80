package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// raceFixture: a requester with the write grant proj, in which x is a
// link the member flips between seen (a directory it sees) and hidden
// (one outside its grants, holding secretname).
type raceFixture struct {
	nested                Host
	proj, x, seen, hidden string
}

func newRaceFixture(t *testing.T) *raceFixture {
	f := newFixture(t)
	home := f.host.Home
	r := &raceFixture{proj: filepath.Join(home, "proj"), hidden: filepath.Join(home, "hidden")}
	r.x, r.seen = filepath.Join(r.proj, "x"), filepath.Join(r.proj, "seen")
	repoTree(t, r.proj, plainRepo...)
	repoTree(t, home, "hidden/secretname/", "hidden/secretname/f = s\n")
	parent, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{r.proj}}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	r.nested = f.host
	r.nested.Requester = parent
	t.Cleanup(func() { os.Remove(r.x); afterJudging = nil })
	return r
}

// point makes x a link to target, replacing it in one step as a member would.
func (r *raceFixture) point(t *testing.T, target string) {
	os.Remove(r.x + ".tmp")
	if err := os.Symlink(target, r.x+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(r.x+".tmp", r.x); err != nil {
		t.Fatal(err)
	}
}

// TestNestedJudgedOnce: a member flips a link in its write grant between
// a place it sees and one outside its view while acbox judges a path
// through it; afterJudging lands the flip exactly between the judgment
// and the use. Every field that names a path must be refused or accepted
// alike whether the name exists in the hidden place (and the accepted plan
// the report shows be the same), and no answer names the hidden place.
// Before, the use resolved the name again: an --exclude of x/secretname was
// accepted and one of x/nosuch refused "no such file" (repro-5).
func TestNestedJudgedOnce(t *testing.T) {
	r := newRaceFixture(t)
	fields := []struct {
		name string
		spec func(p string) Spec
	}{
		{"exclude", func(p string) Spec { return Spec{Exclude: []string{p}} }},
		// A private path lies outside the child's grants: here in its
		// requester's write grant, not in the child's.
		{"private", func(p string) Spec {
			repoTree(t, r.proj, "sub/")
			return Spec{Private: []string{p}, View: ViewHost, Access: Access{Write: []string{filepath.Join(r.proj, "sub")}}}
		}},
		{"read grant", func(p string) Spec { return Spec{Access: Access{Read: []string{p}}} }},
		{"mount source", func(p string) Spec { return Spec{Mounts: []MountSpec{{Source: p, Target: "/m"}}} }},
		{"cwd", func(p string) Spec { return Spec{Cwd: p} }},
		{"git include", func(p string) Spec {
			repoTree(t, r.proj, ".git/config = [include]\npath = "+p+"\n")
			return Spec{}
		}},
	}
	seens := []struct {
		name  string
		entry []string // what the seen directory holds
	}{
		{"seen empty", nil},
		{"seen holds both names", []string{"secretname/", "nosuch/"}},
	}
	// How the member moves the path away: x is retargeted, or the
	// directory the judgment resolved x to is replaced by a link.
	flips := []struct {
		name string
		flip func()
	}{
		{"link retargeted", func() { r.point(t, r.hidden) }},
		{"resolved directory replaced", func() {
			if err := os.Rename(r.seen, r.seen+".away"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(r.hidden, r.seen); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, fd := range fields {
		for _, sn := range seens {
			for _, fl := range flips {
				t.Run(fd.name+"/"+sn.name+"/"+fl.name, func(t *testing.T) {
					defer repoTree(t, r.proj, ".git/config = ")
					outcome := map[string]string{}
					for _, n := range []string{"secretname", "nosuch"} {
						os.Remove(r.seen)
						os.RemoveAll(r.seen)
						os.RemoveAll(r.seen + ".away")
						repoTree(t, r.proj, "seen/")
						repoTree(t, r.seen, sn.entry...)
						outcome[n] = r.try(t, fd.spec(filepath.Join(r.x, n)), fl.flip, n)
					}
					if outcome["secretname"] != outcome["nosuch"] {
						t.Errorf("the answer tells whether the hidden name exists:\n exists: %s\n absent: %s", outcome["secretname"], outcome["nosuch"])
					}
				})
			}
		}
	}
}

// try resolves s with flip run right after the named path (under x) is
// judged, and returns the answer with name replaced by NAME.
func (r *raceFixture) try(t *testing.T, s Spec, flip func(), name string) string {
	r.point(t, r.seen)
	afterJudging = func(real string) {
		if within(real, r.seen) { // the named path, not a grant judged before it
			flip()
		}
	}
	s.Command = []string{"true"}
	if len(s.Access.Write) == 0 {
		s.Access.Write = []string{r.proj}
	}
	plan, err := Resolve(s, r.nested)
	afterJudging = nil
	out := "accepted" + masksNaming(plan, name)
	if err != nil {
		out = err.Error()
	}
	out = strings.ReplaceAll(out, name, "NAME")
	if strings.Contains(out, r.hidden) {
		t.Errorf("%s: the answer names the hidden place: %s", name, out)
	}
	return out
}

// masksNaming lists the masks on name as the report shows them to the
// requester: where, what was there, and through which link.
func masksNaming(p *Plan, name string) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, m := range p.Masks {
		if strings.Contains(m.Path+m.Via, name) {
			b.WriteString("; " + m.Path + " " + m.Kind + " via " + m.Via)
		}
	}
	return b.String()
}

// TestNestedProtectOneWalk: a --protect path in a write grant is looked at
// in one walk of descriptors. The member makes d a directory, and once
// acbox has looked at it, replaces it by a link to the hidden directory;
// the answer (the carve-out, or the path reported missing) must be the
// same whether the name exists there. Looking each path up again by name
// (lstat follows every link but the last) reported the hidden name.
func TestNestedProtectOneWalk(t *testing.T) {
	r := newRaceFixture(t)
	d := filepath.Join(r.proj, "d")
	outcome := map[string]string{}
	for _, n := range []string{"secretname", "nosuch"} {
		os.Remove(d)
		os.RemoveAll(d + ".away")
		repoTree(t, r.proj, "d/")
		afterLstat = func(name string) {
			if name == "d" {
				os.Rename(d, d+".away")
				os.Symlink(r.hidden, d)
			}
		}
		plan, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{r.proj}}, Protect: []string{"d/" + n}}, r.nested)
		afterLstat = nil
		out := "error: "
		if err != nil {
			out += err.Error()
		} else {
			out = fmt.Sprintf("missing %v", plan.ProtectMissing)
			for _, c := range plan.Protected {
				if strings.Contains(c.Path, n) {
					out += fmt.Sprintf("; %s %s %s", c.Path, c.Kind, c.Mode)
				}
			}
		}
		outcome[n] = strings.ReplaceAll(out, n, "NAME")
	}
	os.Remove(d)
	if outcome["secretname"] != outcome["nosuch"] {
		t.Errorf("the answer tells whether the hidden name exists:\n exists: %s\n absent: %s", outcome["secretname"], outcome["nosuch"])
	}
}
