package gitguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree builds entries under dir: "name/" a directory, "name -> target" a
// symlink, "name = text" a file with that text, anything else an empty file.
func tree(t *testing.T, dir string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		var err error
		p := filepath.Join(dir, strings.Fields(e)[0])
		os.MkdirAll(filepath.Dir(p), 0o755)
		switch {
		case strings.Contains(e, " -> "):
			_, target, _ := strings.Cut(e, " -> ")
			err = os.Symlink(target, p)
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			_, text, _ := strings.Cut(e, " = ")
			err = os.WriteFile(p, []byte(text), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// repo is a git directory as git init leaves it, with a work tree holding
// src/deep and a nested repository lib that existed before the run.
var repo = []string{".git/HEAD = ref: refs/heads/main\n", ".git/config", ".git/hooks/", ".git/objects/", ".git/refs/heads/",
	"src/deep/", "lib/.git/HEAD = ref: refs/heads/main\n", "lib/.git/objects/", "lib/.git/refs/", "vendor/x/.git = gitdir: ../../.git/modules/x\n",
	".git/modules/x/HEAD = ref: refs/heads/main\n", ".git/modules/x/objects/", ".git/modules/x/refs/",
	".git/worktrees/w0/HEAD = ref: refs/heads/w0\n", ".git/worktrees/w0/commondir = ../..\n"}

// evilRepo is a git directory of the member's at dir.
func evilRepo(dir string) []string {
	return []string{dir + "/HEAD = ref: refs/heads/main\n", dir + "/objects/", dir + "/refs/", dir + "/config = [core]\n\tfsmonitor = evil\n"}
}

// writeIndex writes an index naming path (a gitlink) at rel.
func writeIndex(t *testing.T, root, rel, path string) {
	t.Helper()
	b := encodeIndex(2, []ent{{"a", 0o100644}, {path, 0o160000}}, nil)
	if err := os.WriteFile(filepath.Join(root, rel), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		attack func(t *testing.T, root string)
		found  []string // relative to the grant, sorted
		failed bool
	}{
		{"nothing changed", func(*testing.T, string) {}, nil, false},
		{"git's own work", func(t *testing.T, r string) {
			tree(t, r, ".git/HEAD = ref: refs/heads/topic\n", ".git/refs/heads/topic = "+strings.Repeat("a", 40)+"\n", "src/new.go", "newdir/sub/")
			writeIndex(t, r, ".git/index", "vendor/x")
		}, nil, false},
		{"the issue's bare fallback", func(t *testing.T, r string) {
			os.Rename(filepath.Join(r, ".git/HEAD"), filepath.Join(r, ".git/HEAD.orig"))
			tree(t, r, "HEAD = ref: refs/heads/main\n", "objects -> .git/objects", "refs -> .git/refs", "config = [core]\n\tfsmonitor = evil\n")
		}, []string{"p/.git/HEAD", "p/HEAD"}, false},
		{"invalid HEAD content", func(t *testing.T, r string) { tree(t, r, ".git/HEAD = garbage\n") }, []string{"p/.git/HEAD"}, false},
		{"HEAD a directory", func(t *testing.T, r string) {
			os.Remove(filepath.Join(r, ".git/HEAD"))
			tree(t, r, ".git/HEAD/")
		}, []string{"p/.git/HEAD"}, false},
		{"HEAD unreadable", func(t *testing.T, r string) { os.Chmod(filepath.Join(r, ".git/HEAD"), 0) }, nil, false},
		{"objects unsearchable", func(t *testing.T, r string) { os.Chmod(filepath.Join(r, ".git/objects"), 0) }, nil, false},
		{"objects removed", func(t *testing.T, r string) { os.Remove(filepath.Join(r, ".git/objects")) }, []string{"p/.git/objects"}, true},
		{"gitdir file in a subdirectory", func(t *testing.T, r string) { tree(t, r, "src/.git = gitdir: ../evil\n") }, []string{"p/src/.git"}, false},
		{"git directory deep down", func(t *testing.T, r string) { tree(t, r, "src/deep/.git/HEAD = ref: refs/heads/main\n") }, []string{"p/src/deep/.git"}, false},
		{"symlinked .git", func(t *testing.T, r string) { tree(t, r, "src/.git -> ../evil") }, []string{"p/src/.git"}, false},
		{"bare layout in a subdirectory", func(t *testing.T, r string) {
			tree(t, r, "src/HEAD = ref: refs/heads/x\n", "src/objects/", "src/refs/")
		}, []string{"p/src/HEAD"}, false},
		{"bare layout between grant and repository", func(t *testing.T, r string) {
			tree(t, filepath.Dir(r), "HEAD = ref: refs/heads/x\n", "objects/", "refs/", "config")
		}, []string{"HEAD"}, false},
		{".git file between grant and repository", func(t *testing.T, r string) { tree(t, filepath.Dir(r), ".git = gitdir: evil\n") }, []string{".git"}, false},
		{"nested repository replaced", func(t *testing.T, r string) {
			os.Rename(filepath.Join(r, "lib"), filepath.Join(r, "lib.old"))
			tree(t, r, "lib/.git/HEAD = ref: refs/heads/main\n")
		}, []string{"p/lib.old/.git", "p/lib/.git"}, false}, // the old one is at a path git never found it at
		{"submodule gitdir rewritten", func(t *testing.T, r string) {
			tree(t, r, "vendor/x/.git.new = gitdir: ../../evil\n")
			os.Rename(filepath.Join(r, "vendor/x/.git.new"), filepath.Join(r, "vendor/x/.git"))
		}, []string{"p/vendor/x/.git"}, false},
		{"new submodule", func(t *testing.T, r string) {
			tree(t, r, ".git/modules/y/HEAD = ref: refs/heads/main\n", ".git/modules/y/config", "y/.git = gitdir: ../.git/modules/y\n")
		}, []string{"p/.git/modules/y", "p/y/.git"}, false},
		{"submodule inside a submodule", func(t *testing.T, r string) { tree(t, r, ".git/modules/x/modules/z/HEAD") }, []string{"p/.git/modules/x/modules/z"}, false},
		{"new worktree", func(t *testing.T, r string) {
			tree(t, r, ".git/worktrees/w/HEAD = ref: refs/heads/main\n", ".git/worktrees/w/commondir = ../../../evil\n", "wt/.git = gitdir: ../.git/worktrees/w\n")
		}, []string{"p/.git/worktrees/w", "p/wt/.git"}, false},
		{"commondir", func(t *testing.T, r string) { tree(t, r, ".git/commondir = ../evil\n") }, []string{"p/.git/commondir"}, false},
		{"gitlink target inside .git (G1)", func(t *testing.T, r string) { tree(t, r, evilRepo(".git/evil/.git")...) }, []string{"p/.git/evil/.git"}, false},
		{"bare layout inside .git", func(t *testing.T, r string) { tree(t, r, evilRepo(".git/refs/heads")...) }, []string{"p/.git/refs/heads/HEAD"}, false},
		{"index names a gitlink in .git", func(t *testing.T, r string) { writeIndex(t, r, ".git/index", ".git/evil") }, []string{"p/.git/index"}, false},
		{"index names a gitlink above the work tree", func(t *testing.T, r string) {
			tree(t, r, evilRepo("../evil/.git")...)
			writeIndex(t, r, ".git/index", "../evil")
		}, []string{"p/.git/index"}, false},
		{"a worktree's index names a gitlink outside", func(t *testing.T, r string) { writeIndex(t, r, ".git/worktrees/w0/index", "../../x") }, []string{"p/.git/worktrees/w0/index"}, false},
		{"a submodule's index is unreadable", func(t *testing.T, r string) { tree(t, r, ".git/modules/x/index = junk") }, []string{"p/.git/modules/x/index"}, false},
		{"directory replaced by a link into .git (G2)", func(t *testing.T, r string) {
			tree(t, r, evilRepo(".git/evil/.git")...)
			os.Rename(filepath.Join(r, "src"), filepath.Join(r, ".git/evil/src-orig"))
			tree(t, r, "src -> .git/evil")
		}, []string{"p/.git/evil/.git", "p/src"}, false},
		{"deep directory replaced by a link outside the work tree", func(t *testing.T, r string) {
			tree(t, r, evilRepo("../elsewhere/.git")...)
			os.Remove(filepath.Join(r, "src/deep"))
			tree(t, r, "src/deep -> ../../elsewhere")
		}, []string{"p/src/deep"}, false},
		{"work tree root replaced by a link", func(t *testing.T, r string) {
			os.Rename(r, r+".orig")
			tree(t, filepath.Dir(r), evilRepo("elsewhere/.git")...)
			tree(t, filepath.Dir(r), "p -> elsewhere")
		}, []string{"p", "p/.git"}, true},
		{"a new link at a new path", func(t *testing.T, r string) { tree(t, r, "newlink -> .git", "src/up -> ..") }, nil, false},
		{"config.worktree (G3)", func(t *testing.T, r string) { tree(t, r, ".git/config.worktree = [core]\n\tfsmonitor = evil\n") }, []string{"p/.git/config.worktree"}, false},
		{"a worktree's config.worktree", func(t *testing.T, r string) { tree(t, r, ".git/worktrees/w0/config.worktree") }, []string{"p/.git/worktrees/w0/config.worktree"}, false},
		{"a submodule's config.worktree", func(t *testing.T, r string) { tree(t, r, ".git/modules/x/config.worktree") }, []string{"p/.git/modules/x/config.worktree"}, false},
		{"rebase left in progress", func(t *testing.T, r string) { tree(t, r, ".git/rebase-merge/git-rebase-todo = exec touch x\n") }, []string{"p/.git/rebase-merge"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			grant := t.TempDir()
			root := filepath.Join(grant, "p")
			tree(t, root, repo...)
			g, err := Watch([]Repo{{Root: root, Grant: grant, OwnGitDir: true}}, []string{filepath.Join(root, ".git"), filepath.Join(root, ".git/modules/x")})
			if err != nil {
				t.Fatal(err)
			}
			c.attack(t, root)
			res := g.Check()
			var got []string
			for _, p := range res.Paths() {
				got = append(got, strings.TrimPrefix(p, grant+"/"))
			}
			if !slices.Equal(got, c.found) || res.Failed() != c.failed {
				t.Errorf("found %q (failed %v), want %q (failed %v): %v", got, res.Failed(), c.found, c.failed, res.Findings)
			}
			if !c.failed {
				checkValid(t, root)
				if again := g.Check(); len(again.Findings) > 0 {
					t.Errorf("a second check still finds %v", again.Findings)
				}
			}
		})
	}
}

// checkValid: root/.git is a git directory again, by git's own rules.
func checkValid(t *testing.T, root string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".git/HEAD"))
	if err != nil || !ValidHead(b) {
		t.Errorf("HEAD %q, %v", b, err)
	}
	for _, n := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(root, ".git", n)); err != nil || fi.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s: %v %v", n, fi, err)
		}
	}
}

func TestWatchTooLarge(t *testing.T) {
	root := t.TempDir()
	tree(t, root, ".git/HEAD = ref: refs/heads/main\n", ".git/objects/", ".git/refs/")
	p := root
	for i := 0; i <= MaxDepth+1; i++ {
		p = filepath.Join(p, "d")
	}
	os.MkdirAll(p, 0o755)
	if _, err := Watch([]Repo{{Root: root, Grant: root, OwnGitDir: true}}, nil); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("Watch of a tree deeper than MaxDepth: %v", err)
	}
}

// TestInvalidBeforeRun: a git directory that was not valid at launch (no
// refs, garbage HEAD) is not the member's doing: nothing to restore, no
// failure; a bare layout the member adds beside it is still moved aside.
func TestInvalidBeforeRun(t *testing.T) {
	grant := t.TempDir()
	root := filepath.Join(grant, "p")
	tree(t, root, ".git/HEAD = garbage\n", ".git/objects/", ".git/config", ".git/hooks/")
	g, err := Watch([]Repo{{Root: root, Grant: grant, OwnGitDir: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tree(t, root, "HEAD = ref: refs/heads/main\n", "objects/", "refs/")
	res := g.Check()
	if got := res.Paths(); res.Failed() || len(got) != 1 || got[0] != filepath.Join(root, "HEAD") {
		t.Errorf("found %v, failed %v; want only the new bare layout's HEAD", res.Findings, res.Failed())
	}
}
