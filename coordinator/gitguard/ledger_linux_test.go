package gitguard

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLedgerTwoSandboxes: two guards over the same repository sharing a
// ledger. A's member plants a .git (or a commondir), B records it at its
// launch, A's check moves it aside, B's member renames it back: B's check
// moves it aside again. A guard that starts after A's check (the user put
// the entry back between runs, as the README says to restore one) keeps
// it. Before the ledger, B kept it: the same inode it recorded.
func TestLedgerTwoSandboxes(t *testing.T) {
	for _, c := range []struct{ name, rel, dir string }{
		{"a deep .git", "src/deep/.git", "src/deep"},
		{"a commondir", ".git/commondir", ".git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			root, ledgerDir := filepath.Join(base, "p"), filepath.Join(base, "state", "git-quarantine")
			tree(t, root, repo...)
			repos := []Repo{{Root: root, Grant: base, OwnGitDir: true}}
			a, err := WatchLedger(repos, nil, ledgerDir)
			if err != nil {
				t.Fatal(err)
			}
			if c.rel == ".git/commondir" {
				tree(t, root, ".git/commondir = ../../evil\n")
			} else {
				tree(t, root, evilRepo(c.rel)...)
			}
			time.Sleep(10 * time.Millisecond)
			b, err := WatchLedger(repos, nil, ledgerDir)
			if err != nil {
				t.Fatal(err)
			}
			ra := a.Check()
			if len(ra.Findings) != 1 || ra.Findings[0].Aside == "" {
				t.Fatalf("A's check: %v", ra.Findings)
			}
			put := func(r *Result) {
				if err := os.Rename(r.Findings[0].Aside, filepath.Join(root, c.rel)); err != nil {
					t.Fatal(err)
				}
			}
			put(ra) // B's member
			rb := b.Check()
			if len(rb.Findings) != 1 || rb.Findings[0].Path != filepath.Join(root, c.rel) || !rb.Findings[0].Was {
				t.Fatalf("B's check kept what A's moved aside and B's member put back: %v", rb.Findings)
			}
			put(rb) // the user, after both runs
			time.Sleep(10 * time.Millisecond)
			d, err := WatchLedger(repos, nil, ledgerDir)
			if err != nil {
				t.Fatal(err)
			}
			if rd := d.Check(); len(rd.Findings) != 0 {
				t.Errorf("a later launch moved aside what the user restored before it: %v", rd.Findings)
			}
		})
	}
}
