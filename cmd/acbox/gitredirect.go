package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/gitguard"
)

// A repository's hooks and config are kept read-only by mounts, but the
// member can still change which git directory the user's git finds after
// the run (an invalid HEAD, a new `.git` or bare layout in the work tree,
// a submodule or worktree git directory, a commondir), and that one's
// config runs commands. No mount can stop those (the files do not exist
// at launch), so the launcher records the protected repositories before
// the run and, once every process of the sandbox has ended, undoes what
// changed: package gitguard. Each finding is named on the member's
// standard error and listed in the report's exit_scan.git_redirects; one
// that cannot be undone makes the run exit 124. Until the run ends, git
// used outside in such a repository follows the member's changes (a
// ceiling in docs/security.md).

// gitWatch is the protected repositories as they were at launch.
type gitWatch struct{ g *gitguard.Guard }

// watchGitRedirects records the plan's protected repositories. A work
// tree too large to check is refused before anything runs.
func watchGitRedirects(p *policy.Plan) (*gitWatch, error) {
	var repos []gitguard.Repo
	for _, r := range p.ProtectedRepos() {
		repos = append(repos, gitguard.Repo{Root: r.Root, Grant: r.Grant, OwnGitDir: r.OwnGitDir})
	}
	if len(repos) == 0 && len(p.ProtectedGitDirs()) == 0 {
		return &gitWatch{}, nil
	}
	g, err := gitguard.Watch(repos, p.ProtectedGitDirs())
	if errors.Is(err, gitguard.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %v; acbox checks every directory of a protected repository's work tree after the run for a new .git, and will not leave some unchecked; grant a narrower directory, or pass --unprotect .git/hooks --unprotect .git/config --unprotect .git", policy.ErrRefused, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: recording the protected repositories: %v", policy.ErrCannotSandbox, err)
	}
	return &gitWatch{g: g}, nil
}

// quarantine undoes what the member changed, says so on errw, and returns
// the paths found. Anything it cannot undo is an error (exit 124) naming
// what to inspect.
func (w *gitWatch) quarantine(errw io.Writer) ([]string, error) {
	if w.g == nil {
		return nil, nil
	}
	res := w.g.Check()
	var failed []string
	for _, f := range res.Findings {
		fmt.Fprintln(errw, "acbox:", f)
		if f.Err != nil {
			failed = append(failed, f.Path)
		}
	}
	if len(failed) > 0 {
		return res.Paths(), fmt.Errorf("%w: git redirects it could not move aside: %s; inspect them before running git in those repositories", policy.ErrUnchecked, strings.Join(failed, " "))
	}
	return res.Paths(), nil
}
