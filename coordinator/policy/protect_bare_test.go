package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// bareRepo is a bare repository at dir as git init --bare leaves it.
func bareRepo(dir string) []string {
	var out []string
	for _, e := range []string{"HEAD = ref: refs/heads/main\n", "config", "hooks/", "objects/info/", "refs/heads/"} {
		out = append(out, dir+"/"+e)
	}
	return out
}

// TestBareRepos: a bare repository at a write grant's root or up to three
// levels below it gets its hooks and config kept read-only and its
// objects and refs pinned, and is listed for the check after the run.
// Before, the search looked only for .git and planned nothing.
func TestBareRepos(t *testing.T) {
	cases := []struct {
		name      string
		tree      []string // under the grant home/u/g
		unprotect []string
		bare      string // Plan.BareRepos relative to the grant
		carve     string // read-only carve-outs relative to the grant, or the error's substring
		wantErr   bool
	}{
		{name: "none", carve: ""},
		{name: "at the root", tree: bareRepo("."), bare: ".", carve: "config hooks"},
		{name: "one level down", tree: bareRepo("remote.git"), bare: "remote.git", carve: "remote.git/config remote.git/hooks"},
		{name: "three levels down", tree: bareRepo("cache/vcs/r.git"), bare: "cache/vcs/r.git", carve: "cache/vcs/r.git/config cache/vcs/r.git/hooks"},
		{name: "four levels down: not searched", tree: bareRepo("a/b/c/r.git"), carve: ""},
		{name: "a work tree with a bare layout is a work tree", tree: append(bareRepo("w"), nested("w")...), carve: "w/.git/config w/.git/hooks"},
		{name: "HEAD a directory: not a git directory", tree: []string{"x/HEAD/", "x/objects/", "x/refs/"}, carve: ""},
		{name: "missing hooks refused", tree: []string{"r.git/HEAD = ref: refs/heads/main\n", "r.git/config", "r.git/objects/", "r.git/refs/"}, carve: "does not exist", wantErr: true},
		{name: "missing hooks, unprotected", tree: []string{"r.git/HEAD = ref: refs/heads/main\n", "r.git/config", "r.git/objects/", "r.git/refs/"}, unprotect: []string{".git/hooks"}, bare: "r.git", carve: "r.git/config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			g := filepath.Join(f.host.Home, "g")
			repoTree(t, g, "keep/")
			repoTree(t, g, c.tree...)
			p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{g}}, Unprotect: c.unprotect}, f.host)
			if c.wantErr {
				checkErr(t, err, c.carve)
				return
			}
			checkErr(t, err, "")
			var ro, bare []string
			for _, co := range p.Protected {
				if co.Mode == CarveReadOnly {
					ro = append(ro, strings.TrimPrefix(co.Path, g+"/"))
				}
			}
			for _, r := range p.BareRepos {
				rel, _ := filepath.Rel(g, r.Root)
				bare = append(bare, rel)
			}
			if strings.Join(ro, " ") != c.carve || strings.Join(bare, " ") != c.bare {
				t.Errorf("read-only %q and bare %q, want %q and %q", strings.Join(ro, " "), strings.Join(bare, " "), c.carve, c.bare)
			}
		})
	}
}
