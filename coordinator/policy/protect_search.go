package policy

import (
	"fmt"
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
// repoSearchDepth levels down, that hold a .git entry, in the order of a
// walk that takes each directory's entries by name.
// protect_search_linux.go reads with getdents into one buffer and keeps
// what it read for the exit scan (listings.go); protect_search_other.go
// uses os.ReadDir.
func nestedRepos(root string, p *Plan) ([]string, error) {
	found, _, err := searchRepos(root, p)
	return found, err
}

// searchRepos returns nestedRepos' repositories and, apart, the bare
// repositories in the same range: directories holding HEAD, objects and
// refs (git's is_git_directory) and no .git, which the search does not
// enter (their insides are git's). A git push to one runs its hooks.
func searchRepos(root string, p *Plan) (found, bare []string, err error) {
	s := repoSearch{root: root, plan: p}
	if err := s.search(); err != nil {
		return nil, nil, err
	}
	return s.found, s.bare, nil
}

type repoSearch struct {
	root  string
	plan  *Plan
	seen  int
	found []string
	bare  []string
	// Linux only (protect_search_linux.go)
	rd   direntsReader
	full bool // the plan's listings are at their budget
}

// count counts one more directory, refusing the grant past the limit.
func (s *repoSearch) count() error {
	if s.seen++; s.seen > repoSearchLimit {
		return refuse(s.root, fmt.Sprintf("holds more than %d directories within %d levels; acbox searches that far for git repositories whose hooks and config it keeps read-only, and will not leave some unsearched", repoSearchLimit, repoSearchDepth),
			"grant a narrower directory, or --protect the repositories' .git/hooks and .git/config yourself and pass --unprotect .git/hooks --unprotect .git/config --unprotect .git")
	}
	return nil
}

// skipped: a directory entry the search does not descend into by name.
func skipped(name string) bool { return name == ".git" || name == "node_modules" }

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
