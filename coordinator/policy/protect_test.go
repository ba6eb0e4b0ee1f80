package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoTree builds entries under dir: a name ending in "/" is a directory,
// "name -> target" a symlink, "name = text" a file with that content, and
// anything else an empty file.
func repoTree(t *testing.T, dir string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		var err error
		switch {
		case strings.Contains(e, " -> "):
			name, target, _ := strings.Cut(e, " -> ")
			err = os.Symlink(target, filepath.Join(dir, name))
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(filepath.Join(dir, e), 0o755)
		default:
			name, text, _ := strings.Cut(e, " = ")
			if err = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err == nil {
				err = os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// carveSummary renders a plan's carve-outs relative to base as
// "mode:path" in plan order.
func carveSummary(p *Plan, base string) string {
	var out []string
	for _, c := range p.Protected {
		out = append(out, c.Mode+":"+strings.TrimPrefix(c.Path, base+"/"))
	}
	return strings.Join(out, " ")
}

var plainRepo = []string{".git/hooks/", ".git/objects/", ".git/config", ".git/HEAD = ref: refs/heads/main\n"}

// submodule is a cloned submodule's git directory at dir, as git leaves it.
func submodule(dir string) []string {
	var out []string
	for _, e := range []string{"HEAD = ref: refs/heads/main\n", "config", "hooks/", "objects/pack/", "refs/heads/main", "logs/HEAD", "logs/refs/heads/main", "info/exclude", "packed-refs", "index"} {
		out = append(out, dir+"/"+e)
	}
	return out
}

// nested is plainRepo at dir (relative to the tree's root).
func nested(dir string) []string {
	var out []string
	for _, e := range plainRepo {
		out = append(out, dir+"/"+e)
	}
	return out
}

func TestProtectResolution(t *testing.T) {
	cases := []struct {
		name      string
		tree      []string // under home/u/proj
		other     []string // under home/u/other, a second write grant when set
		read      []string // extra read grants, relative to proj
		protect   []string
		unprotect []string
		want      string // carveSummary relative to home/u, or the error's substring
		wantErr   bool
		missing   int
	}{
		{name: "no repository", tree: []string{"src/"}, want: ""},
		{name: "plain repository", tree: plainRepo, want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/objects"},
		{name: "unprotect config", tree: plainRepo, unprotect: []string{".git/config"}, want: "pin:proj/.git ro:proj/.git/hooks pin:proj/.git/objects"},
		{name: "objects and refs pinned", tree: append([]string{".git/refs/heads/"}, plainRepo...),
			want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/objects pin:proj/.git/refs"},
		{name: "symlinked objects not pinned", tree: []string{".git/hooks/", ".git/config", ".git/store/", ".git/objects -> store"},
			want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks"},
		{name: "unprotect .git drops the pins", tree: plainRepo, unprotect: []string{".git"}, want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks"},
		{name: "unprotect all", tree: plainRepo, unprotect: []string{".git/config", ".git/hooks/"}, want: ""},
		{name: "missing hooks refused", tree: []string{".git/config", ".git/HEAD"}, want: "run `git init`", wantErr: true},
		{name: "missing hooks unprotected", tree: []string{".git/config"}, unprotect: []string{".git/hooks"}, want: "pin:proj/.git ro:proj/.git/config"},
		{name: "hooks symlink refused", tree: []string{".git/config", ".git/shared/", ".git/hooks -> shared"}, want: "is a symlink on the way to git hooks", wantErr: true},
		{name: ".git symlink refused", tree: []string{"real/hooks/", "real/config", ".git -> real"}, want: "is a symlink: a member could replace it", wantErr: true},
		{name: ".git symlink, all dropped", tree: []string{"real/", ".git -> real"}, unprotect: []string{".git", ".git/hooks", ".git/config"}, want: ""},
		{name: "protect a file", tree: append([]string{"build.sh"}, plainRepo...), protect: []string{"build.sh"},
			want: "pin:proj/.git ro:proj/build.sh ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/objects"},
		{name: "protect nested file pins its parents", tree: []string{"ci/scripts/run.sh"}, protect: []string{"ci/scripts/run.sh"},
			want: "pin:proj/ci pin:proj/ci/scripts ro:proj/ci/scripts/run.sh"},
		{name: "protect missing is skipped", tree: []string{"src/"}, protect: []string{"build.sh"}, want: "", missing: 1},
		{name: "protect inside protected dir is merged", tree: plainRepo, protect: []string{".git/hooks/pre-commit", ".git"}, want: "ro:proj/.git"},
		{name: "nested read grant over .git", tree: plainRepo, read: []string{".git"}, want: ""},
		{name: "worktree with common dir in a grant",
			tree:  []string{".git = gitdir: ../other/.git/worktrees/wt\n"},
			other: []string{".git/hooks/", ".git/config", ".git/HEAD", ".git/worktrees/wt/commondir = ../..\n", ".git/worktrees/wt/HEAD"},
			want: "pin:other/.git ro:proj/.git ro:other/.git/config ro:other/.git/hooks pin:other/.git/worktrees " +
				"pin:other/.git/worktrees/wt ro:other/.git/worktrees/wt/commondir"},
		{name: "worktree with its gitdir outside the grants", tree: []string{".git = gitdir: /nonexistent/.git/worktrees/wt\n"}, want: "ro:proj/.git"},
		{name: "submodule gitdir in a grant",
			tree:  []string{".git = gitdir: ../other/.git/modules/sub\n"},
			other: []string{".git/hooks/", ".git/config", ".git/HEAD", ".git/modules/sub/hooks/", ".git/modules/sub/config", ".git/modules/sub/HEAD", ".git/modules/sub/objects/", ".git/modules/sub/refs/"},
			want: "pin:other/.git ro:proj/.git ro:other/.git/config ro:other/.git/hooks pin:other/.git/modules " +
				"pin:other/.git/modules/sub ro:other/.git/modules/sub/config ro:other/.git/modules/sub/hooks"},
		{name: "cloned submodule (its reflog is logs/HEAD)", tree: append(submodule(".git/modules/lib"), plainRepo...),
			want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/modules pin:proj/.git/objects pin:proj/.git/modules/lib ro:proj/.git/modules/lib/config ro:proj/.git/modules/lib/hooks"},
		{name: "submodules nested and namespaced", tree: append(append(submodule(".git/modules/vendor/a"), submodule(".git/modules/vendor/a/modules/b")...), plainRepo...),
			want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/modules pin:proj/.git/objects pin:proj/.git/modules/vendor pin:proj/.git/modules/vendor/a " +
				"ro:proj/.git/modules/vendor/a/config ro:proj/.git/modules/vendor/a/hooks pin:proj/.git/modules/vendor/a/modules pin:proj/.git/modules/vendor/a/modules/b " +
				"ro:proj/.git/modules/vendor/a/modules/b/config ro:proj/.git/modules/vendor/a/modules/b/hooks"},
		{name: "a HEAD without objects and refs is a namespace", tree: append([]string{".git/modules/ns/HEAD"}, plainRepo...),
			want: "pin:proj/.git ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/objects"},
		{name: "grant inside a pin refused", tree: plainRepo, read: []string{".git/objects"}, want: "would hide it", wantErr: true},
		{name: "nested repository one level down", tree: nested("sub"), want: "pin:proj/sub pin:proj/sub/.git ro:proj/sub/.git/config ro:proj/sub/.git/hooks pin:proj/sub/.git/objects"},
		{name: "nested repository three levels down", tree: nested("a/b/c"),
			want: "pin:proj/a pin:proj/a/b pin:proj/a/b/c pin:proj/a/b/c/.git ro:proj/a/b/c/.git/config ro:proj/a/b/c/.git/hooks pin:proj/a/b/c/.git/objects"},
		{name: "four levels down is not searched", tree: nested("a/b/c/d"), want: ""},
		{name: "root and nested repositories", tree: append(nested("lib"), plainRepo...),
			want: "pin:proj/.git pin:proj/lib ro:proj/.git/config ro:proj/.git/hooks pin:proj/.git/objects pin:proj/lib/.git ro:proj/lib/.git/config ro:proj/lib/.git/hooks pin:proj/lib/.git/objects"},
		{name: "nested submodule checkout", tree: []string{"sub/.git = gitdir: /nonexistent/modules/sub\n"}, want: "pin:proj/sub ro:proj/sub/.git"},
		{name: "nested repository missing hooks refused", tree: []string{"sub/.git/config", "sub/.git/HEAD"}, want: "run `git init`", wantErr: true},
		{name: "node_modules not searched", tree: nested("node_modules/pkg"), want: ""},
		{name: "symlinked directory not followed", tree: append(nested("../elsewhere/repo"), "link -> ../elsewhere"), want: ""},
		{name: "nested read grant not searched", tree: nested("vendor/dep"), read: []string{"vendor"}, want: ""},
		{name: "nested repositories all unprotected", tree: nested("sub"), unprotect: []string{".git", ".git/hooks", ".git/config"}, want: ""},
		{name: "absolute protect", protect: []string{"/etc"}, want: "relative to each write grant", wantErr: true},
		{name: "protect escaping", protect: []string{"../x"}, want: "relative to each write grant", wantErr: true},
		{name: "protect the grant", protect: []string{"."}, want: "relative to each write grant", wantErr: true},
		{name: "unknown unprotect", unprotect: []string{"build.sh"}, want: "want one of", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			base := f.host.Home
			proj, other := filepath.Join(base, "proj"), filepath.Join(base, "other")
			repoTree(t, proj, c.tree...)
			s := Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}, Protect: c.protect, Unprotect: c.unprotect}
			if c.other != nil {
				repoTree(t, other, c.other...)
				s.Access.Write = append(s.Access.Write, other)
			}
			for _, r := range c.read {
				s.Access.Read = append(s.Access.Read, filepath.Join(proj, r))
			}
			p, err := Resolve(s, f.host)
			if c.wantErr {
				checkErr(t, err, c.want)
				return
			}
			checkErr(t, err, "")
			if got := carveSummary(p, base); got != c.want {
				t.Errorf("carve-outs\n got: %s\nwant: %s", got, c.want)
			}
			if len(p.ProtectMissing) != c.missing {
				t.Errorf("protect_missing %v, want %d entries", p.ProtectMissing, c.missing)
			}
			for _, pc := range p.Protected {
				if pc.Ino == 0 || pc.Grant == "" {
					t.Errorf("%s: no identity or grant recorded: %+v", pc.Path, pc)
				}
			}
		})
	}
}

// TestProtectNarrower: a nested launch may not write what its requester
// keeps read-only.
func TestProtectNarrower(t *testing.T) {
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	repoTree(t, proj, plainRepo...)
	resolve := func(unprotect ...string) *Plan {
		p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}, Unprotect: unprotect}, f.host)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	parent := resolve()
	checkErr(t, Narrower(resolve(), parent), "")
	checkErr(t, Narrower(resolve(".git/hooks"), parent), "nested launch may not make it writable")
	checkErr(t, Narrower(resolve(".git/hooks"), resolve(".git/hooks")), "")
}

// TestModuleLimit: more submodule directories than the search looks at
// refuse the launch rather than leave some unprotected; the insides of
// submodule git directories do not count.
func TestModuleLimit(t *testing.T) {
	defer func(n int) { maxModules = n }(maxModules)
	maxModules = 4
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	repoTree(t, proj, append(append(submodule(".git/modules/a"), submodule(".git/modules/b")...), plainRepo...)...)
	spec := Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}}
	_, err := Resolve(spec, f.host)
	checkErr(t, err, "")
	repoTree(t, proj, submodule(".git/modules/ns/c")...)
	repoTree(t, proj, submodule(".git/modules/ns/d")...)
	_, err = Resolve(spec, f.host)
	checkErr(t, err, "will not leave some unfound")
}

// TestRepoSearchLimit: a write grant with more directories than the search
// looks at is refused, not searched in part; dropping every built-in skips
// the search.
func TestRepoSearchLimit(t *testing.T) {
	defer func(n int) { repoSearchLimit = n }(repoSearchLimit)
	repoSearchLimit = 5
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	repoTree(t, proj, "a/", "b/", "c/", "d/", "e/", "f/")
	_, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}}, f.host)
	checkErr(t, err, "will not leave some unsearched")
	_, err = Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}, Unprotect: BuiltinProtect()}, f.host)
	checkErr(t, err, "")
}
