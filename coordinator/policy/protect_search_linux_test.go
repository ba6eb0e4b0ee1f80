package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acbox/acbox/coordinator/dirents"
)

// TestNestedRepos: the repositories the search finds, in walk order: a
// .git directory or file down to three levels, also in a directory the
// search may enter but not list; none deeper, none under node_modules or
// .git, none through a symlink.
func TestNestedRepos(t *testing.T) {
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	repoTree(t, proj, "b/.git/", "a/c/.git = gitdir: x", "d/e/f/.git/", "g/h/i/j/.git/",
		"node_modules/x/.git/", ".git/y/.git/", "k/.git/", "l -> b", "m/n/", "m/o = file")
	os.Chmod(filepath.Join(proj, "k"), 0o111) // searchable, not listable
	defer os.Chmod(filepath.Join(proj, "k"), 0o755)
	p := &Plan{}
	got, err := nestedRepos(proj, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/c", "b", "d/e/f", "k"}
	for i := range want {
		want[i] = filepath.Join(proj, want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("repositories\n got %q\nwant %q", got, want)
	}
}

// TestListingsKept: Resolve keeps the records of the directories the
// repository search read (root and two levels below), for the exit scan's
// walk before the run, and hands them out once.
func TestListingsKept(t *testing.T) {
	f := newFixture(t)
	proj := filepath.Join(f.host.Home, "proj")
	repoTree(t, proj, "a/b/c/d/", "a/file", "e -> a")
	p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{proj}}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	l := p.TakeListings()
	for _, d := range []string{"", "a", "a/b", "docs"} {
		recs, ok := l.Dir(filepath.Join(proj, d))
		if !ok {
			t.Errorf("%q: not kept", d)
			continue
		}
		var got []string
		if err := dirents.Parse(recs, func(name []byte, _ uint8) bool { got = append(got, string(name)); return true }); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(filepath.Join(proj, d))
		var want []string
		for _, e := range ents {
			want = append(want, e.Name())
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: kept %q, want %q", d, got, want)
		}
	}
	if _, ok := l.Dir(filepath.Join(proj, "a/b/c")); ok {
		t.Error("a/b/c is past the search's depth, yet kept")
	}
	if p.TakeListings() != nil {
		t.Error("listings handed out twice")
	}
}
