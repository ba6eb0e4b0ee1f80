package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedReadsOnlyWhatTheRequesterSees: a nested launch's spec and the
// git config its requester may write are judged against the requester's
// view. A path it cannot see is refused the same way whether it exists or
// not (no existence oracle), and no refusal quotes what a file holds.
// Before, an include of a private file was refused quoting its first
// key, a missing one launched, and an --exclude was accepted only if its
// path existed.
func TestNestedReadsOnlyWhatTheRequesterSees(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	proj, other := filepath.Join(home, "proj"), filepath.Join(home, "other")
	repoTree(t, proj, plainRepo...)
	repoTree(t, home, "secret/key = sk-SECRET\n", "hidden/", "other/team.cfg = [core]\nhooksPath = h\n")
	parent, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}, Read: []string{other}}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	nested := f.host
	nested.Requester = parent
	include := func(p string) { repoTree(t, proj, ".git/config = [include]\npath = "+p+"\n") }
	symlink := func(name, target string) {
		os.Remove(filepath.Join(proj, name))
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(filepath.Join(proj, name)) })
	}
	link := func() { symlink("x", filepath.Join(home, "secret")) }
	// A link the user left in a read grant, into a hidden directory: the
	// member cannot change it, but a target through it was judged by
	// whether the name behind it existed.
	linkInRead := func() {
		os.Remove(filepath.Join(other, "l"))
		if err := os.Symlink(filepath.Join(home, "secret"), filepath.Join(other, "l")); err != nil {
			t.Fatal(err)
		}
	}
	targetVia := func(name string) Spec {
		return Spec{Access: Access{Read: []string{other}}, Mounts: []MountSpec{{Source: filepath.Join(other, "team.cfg"), Target: filepath.Join(other, "l", name)}}}
	}
	gitFile := func(gd string) {
		repoTree(t, proj, "wt/.git = gitdir: "+gd+"\n")
	}
	linkSeen := func() { symlink("y", "../other") }
	cases := []struct {
		name  string
		setup func()
		spec  Spec
		host  Host
		want  string // "" for no error
	}{
		{name: "include of a private file", setup: func() { include(filepath.Join(home, "secret/key")) }, host: nested, want: "cannot see it"},
		{name: "include of a missing file it cannot see", setup: func() { include(filepath.Join(home, "secret/nope")) }, host: nested, want: "cannot see it"},
		{name: "include of a file it reads", setup: func() { include(filepath.Join(other, "team.cfg")) }, host: nested, want: "mkdir"},
		{name: "the user's global config is the user's choice", setup: func() {
			repoTree(t, home, ".gitconfig = [include]\npath = ~/secret/nope\n")
			t.Cleanup(func() { os.Remove(filepath.Join(home, ".gitconfig")) })
		}, host: nested, want: ""},
		{name: "from the host, a broken file is named, not quoted", setup: func() { include(filepath.Join(home, "secret/key")) }, host: f.host, want: "line 1: a key outside any section"},
		{name: "exclude of an existing path it cannot see", spec: Spec{Exclude: []string{filepath.Join(home, "hidden")}}, host: nested, want: "cannot see it"},
		{name: "exclude of a missing path it cannot see", spec: Spec{Exclude: []string{filepath.Join(home, "nope")}}, host: nested, want: "cannot see it"},
		{name: "exclude of a path it sees", spec: Spec{Exclude: []string{filepath.Join(other, "team.cfg")}, Access: Access{Read: []string{other}}}, host: nested, want: ""},
		{name: "grant of an existing directory it cannot see", spec: Spec{Access: Access{Read: []string{filepath.Join(home, "hidden")}}}, host: nested, want: "cannot see it"},
		{name: "grant of a missing directory it cannot see", spec: Spec{Access: Access{Read: []string{filepath.Join(home, "nope")}}}, host: nested, want: "cannot see it"},
		{name: "mount of a file it cannot see", spec: Spec{Mounts: []MountSpec{{Source: filepath.Join(home, "secret/key"), Target: "/k"}}}, host: nested, want: "cannot see it"},
		// The reviewer's oracle: a link in the write grant into a hidden
		// place, then a name: the same refusal whether the name exists.
		{name: "exclude through a link to a hidden file that exists", setup: link, spec: Spec{Exclude: []string{filepath.Join(proj, "x/key")}}, host: nested, want: "cannot see it"},
		{name: "exclude through a link to a hidden file that does not", setup: link, spec: Spec{Exclude: []string{filepath.Join(proj, "x/nope")}}, host: nested, want: "cannot see it"},
		{name: "grant through a link to a hidden directory that exists", setup: link, spec: Spec{Access: Access{Read: []string{filepath.Join(proj, "x")}}}, host: nested, want: "cannot see it"},
		{name: "grant through a link to a hidden path that does not", setup: link, spec: Spec{Access: Access{Read: []string{filepath.Join(proj, "x/nope")}}}, host: nested, want: "cannot see it"},
		{name: "cwd through a link to a hidden directory that exists", setup: link, spec: Spec{Cwd: filepath.Join(proj, "x")}, host: nested, want: "cannot see it"},
		{name: "cwd through a link to a hidden path that does not", setup: link, spec: Spec{Cwd: filepath.Join(proj, "x/nope")}, host: nested, want: "cannot see it"},
		{name: "private path it cannot see that exists", spec: Spec{Private: []string{filepath.Join(home, "hidden")}}, host: nested, want: "cannot see it"},
		{name: "private path it cannot see that does not", spec: Spec{Private: []string{filepath.Join(home, "nope")}}, host: nested, want: "cannot see it"},
		{name: "a .git file pointing where it cannot see, which exists", setup: func() { gitFile(filepath.Join(home, "secret")) }, host: nested, want: "cannot see it"},
		{name: "a .git file pointing where it cannot see, which does not exist", setup: func() { gitFile(filepath.Join(home, "nope")) }, host: nested, want: "cannot see it"},
		{name: "mount target through a link in a read grant to a hidden file that exists", setup: linkInRead, spec: targetVia("key"), host: nested, want: "does not exist inside the read-only"},
		{name: "mount target through a link in a read grant to a hidden path that does not", setup: linkInRead, spec: targetVia("nope"), host: nested, want: "does not exist inside the read-only"},
		{name: "a link to what it sees is judged as before", setup: linkSeen, spec: Spec{Exclude: []string{filepath.Join(proj, "y/team.cfg")}, Access: Access{Read: []string{other}}}, host: nested, want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repoTree(t, proj, ".git/config = ")
			os.RemoveAll(filepath.Join(proj, "wt"))
			if c.setup != nil {
				c.setup()
			}
			s := c.spec
			s.Command = []string{"true"}
			s.Access.Write = append(s.Access.Write, proj)
			_, err := Resolve(s, c.host)
			checkErr(t, err, c.want)
			if err != nil && strings.Contains(strings.ToLower(err.Error()), "sk-secret") {
				t.Errorf("the refusal quotes the private file: %v", err)
			}
		})
	}
}

// TestGitConfigErrorsQuoteNothing: a parse error names the line and the
// kind of fault, never the bytes that caused it.
func TestGitConfigErrorsQuoteNothing(t *testing.T) {
	for _, in := range []string{"sk-SECRET\n", "[core]\n=sk-SECRET\n", "[core]\nhooksPath = a\\ksk-SECRET\n", "/sk-SECRET\n"} {
		_, err := parseGitConfig([]byte(in))
		if err == nil || strings.Contains(strings.ToLower(err.Error()), "sk-secret") || strings.Contains(err.Error(), "'k'") || strings.Contains(err.Error(), "'/'") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
