package gitguard

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEnclosingGrant: a repository whose work tree holds the write grant
// (-w repo/src) has the grant walked: a new .git at the grant's root or
// below is moved aside, what was there before is kept, and nothing
// outside the grant is touched.
func TestEnclosingGrant(t *testing.T) {
	cases := []struct {
		name   string
		attack []string // under repo/src
		found  []string // relative to repo, sorted
	}{
		{"nothing changed", nil, nil},
		{"git init at the grant's root", evilRepo(".git"), []string{"src/.git"}},
		{"gitdir file at the grant's root", []string{".git = gitdir: ../../evil\n"}, []string{"src/.git"}},
		{"a .git deep in the grant", evilRepo("a/b/c/d/.git"), []string{"src/a/b/c/d/.git"}},
		{"a bare layout in the grant", evilRepo("deep"), []string{"src/deep/HEAD"}},
		{"a new directory with a repository", evilRepo("new/.git"), []string{"src/new/.git"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			grant := filepath.Join(root, "src")
			tree(t, root, ".git/HEAD = ref: refs/heads/main\n", ".git/objects/", ".git/refs/", "src/deep/", "src/lib/.git/HEAD = ref: refs/heads/main\n",
				"src/lib/.git/objects/", "src/lib/.git/refs/", "src/a/b/c/d/", "outside/")
			g, err := Watch([]Repo{{Root: root, Grant: grant}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tree(t, grant, c.attack...)
			tree(t, root, "outside/.git = gitdir: elsewhere\n") // not the member's to write: left alone
			res := g.Check()
			var got []string
			for _, p := range res.Paths() {
				rel, _ := filepath.Rel(root, p)
				got = append(got, rel)
			}
			if res.Failed() || !slices.Equal(got, c.found) {
				t.Errorf("found %v (failed %v), want %v", got, res.Failed(), c.found)
			}
		})
	}
}

// TestBareRepoWatched: a bare repository in a grant is walked like a work
// tree: a .git the member adds inside it (git push to DIR tries DIR/.git
// first) is moved aside; git's own work in it is left alone.
func TestBareRepoWatched(t *testing.T) {
	base := t.TempDir()
	bare := filepath.Join(base, "g", "remote.git")
	tree(t, bare, "HEAD = ref: refs/heads/main\n", "config", "hooks/", "objects/info/", "refs/heads/")
	g, err := Watch([]Repo{{Root: bare, Grant: filepath.Join(base, "g")}}, []string{bare})
	if err != nil {
		t.Fatal(err)
	}
	tree(t, bare, "objects/ab/cdef", "refs/heads/topic = "+strings.Repeat("a", 40)+"\n")
	tree(t, bare, evilRepo(".git")...)
	res := g.Check()
	if got := res.Paths(); res.Failed() || !slices.Equal(got, []string{filepath.Join(bare, ".git")}) {
		t.Errorf("found %v (failed %v), want only remote.git/.git", got, res.Failed())
	}
}
