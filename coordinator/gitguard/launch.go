package gitguard

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// The launcher's use of the guard. A repository's hooks and config are
// kept read-only by mounts, but the member can still change which git
// directory the user's git finds after the run, and no mount can stop
// that (the files do not exist at launch). So the launcher records the
// plan's protected repositories before the run ([WatchPlan]) and, once
// every process of the sandbox has ended, undoes what changed
// ([Redirects.Quarantine]). Each finding is named on the member's standard
// error and listed in the report's exit_scan.git_redirects; one that
// cannot be undone makes the run exit 124. Until the run ends, git used
// outside in such a repository follows the member's changes (a ceiling in
// docs/security.md).

// Redirects is a plan's protected repositories as they were at launch.
// The zero value (and nil) watches nothing.
type Redirects struct{ g *Guard }

// WatchPlan records the plan's protected repositories and git
// directories. A work tree too large to check is refused (class
// policy.ErrRefused) before anything runs; any other failure is
// policy.ErrCannotSandbox.
func WatchPlan(p *policy.Plan) (*Redirects, error) {
	var repos []Repo
	for _, r := range p.ProtectedRepos() {
		repos = append(repos, Repo{Root: r.Root, Grant: r.Grant, OwnGitDir: r.OwnGitDir})
	}
	if len(repos) == 0 && len(p.ProtectedGitDirs()) == 0 {
		return &Redirects{}, nil
	}
	g, err := WatchLedger(repos, p.ProtectedGitDirs(), policy.GitLedgerDir(p))
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w; acbox checks every directory of a protected repository's work tree after the run for a new .git, "+
			"and will not leave some unchecked; grant a narrower directory, or pass --unprotect .git/hooks --unprotect .git/config --unprotect .git",
			policy.ErrRefused, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: recording the protected repositories: %w", policy.ErrCannotSandbox, err)
	}
	return &Redirects{g: g}, nil
}

// Quarantine undoes what the member changed, names each finding on errw
// and returns the paths found, sorted. Anything it cannot undo is an
// error of class policy.ErrUnchecked (exit 124) naming what to inspect.
// Every process of the sandbox must have ended.
func (r *Redirects) Quarantine(errw io.Writer) ([]string, error) {
	if r == nil || r.g == nil {
		return nil, nil
	}
	res := r.g.Check()
	if err := r.g.ledger.err; err != nil {
		fmt.Fprintf(errw, "acbox: the ledger of what the git check moved aside could not be written (%s): a sandbox running now over the same repository would not know; check its repository after it ends\n", err.Error())
	}
	var failed []string
	for _, f := range res.Findings {
		fmt.Fprintln(errw, "acbox:", f)
		if f.Err != nil {
			failed = append(failed, policy.Quote(f.Path))
		}
	}
	if len(failed) > 0 {
		return res.Paths(), fmt.Errorf("%w: git redirects it could not move aside: %s; inspect them before running git in those repositories",
			policy.ErrUnchecked, strings.Join(failed, " "))
	}
	return res.Paths(), nil
}
