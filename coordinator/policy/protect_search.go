package policy

import (
	"fmt"
	"os"
	"path/filepath"
)

// Repositories below a write grant's root get the same built-in carve-outs
// as the one at its root. They are searched for to repoSearchDepth levels
// below the root (sandbox-runtime searches as deep for the files it keeps
// read-only), without following symlinks, skipping .git directories and
// node_modules (package managers do not keep repositories there), and not
// descending into what the sandbox shows as something else: another grant
// (searched from its own root when it is a write grant), a runtime mount, a
// tmpfs or a mask. Deeper repositories need --protect.
const repoSearchDepth = 3

// repoSearchLimit bounds the directories looked at in one write grant. A
// grant with more within repoSearchDepth levels is refused rather than
// searched in part: a repository the search missed would stay writable.
var repoSearchLimit = 20000

// nestedRepos returns the directories strictly below root, at most
// repoSearchDepth levels down, that hold a .git entry.
func nestedRepos(root string, p *Plan) ([]string, error) {
	s := repoSearch{root: root, plan: p}
	if err := s.walk(root, 0); err != nil {
		return nil, err
	}
	return s.found, nil
}

type repoSearch struct {
	root  string
	plan  *Plan
	seen  int
	found []string
}

func (s *repoSearch) walk(dir string, depth int) error {
	if depth == repoSearchDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable here: unreadable for the member too
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".git" || e.Name() == "node_modules" {
			continue
		}
		if s.seen++; s.seen > repoSearchLimit {
			return refuse(s.root, fmt.Sprintf("holds more than %d directories within %d levels; acbox searches that far for git repositories whose hooks and config it keeps read-only, and will not leave some unsearched", repoSearchLimit, repoSearchDepth),
				"grant a narrower directory, or --protect the repositories' .git/hooks and .git/config yourself and pass --unprotect .git/hooks --unprotect .git/config --unprotect .git")
		}
		sub := filepath.Join(dir, e.Name())
		if s.otherView(sub) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(sub, ".git")); err == nil {
			s.found = append(s.found, sub)
		}
		if err := s.walk(sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// otherView: the sandbox shows something else at dir than this grant's
// tree (another grant, a runtime mount, a tmpfs, a mask).
func (s *repoSearch) otherView(dir string) bool {
	for _, g := range s.plan.Grants {
		if g.Path == dir {
			return true
		}
	}
	home, _ := innermostGrant(s.plan.Grants, dir)
	return shadowed(dir, home, s.plan)
}
