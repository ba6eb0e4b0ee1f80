package gitguard

import (
	"path/filepath"
	"sort"

	"github.com/acbox/acbox/coordinator/sys"
)

// stateNames are entries of a git directory that must not appear during
// the run, because no mount can keep a file that does not exist read-only:
//
//   - commondir sends git elsewhere for hooks and config;
//   - config.worktree is read as config (core.fsmonitor, core.hooksPath...)
//     once extensions.worktreeConfig is set, which git sparse-checkout and
//     git worktree do on their own;
//   - rebase-merge, rebase-apply and sequencer hold a rebase, am or
//     cherry-pick in progress, whose todo list can carry `exec` lines that
//     `git rebase --continue` would run.
//
// Every other entry git reads from a git directory is data (refs, objects,
// the index, info/exclude...) or is named only by config; docs/security.md
// lists them.
var stateNames = []string{"commondir", "config.worktree", "rebase-merge", "rebase-apply", "sequencer"}

// whyState says what git would do with each state entry.
func whyState(name string) string {
	switch name {
	case "commondir":
		return "git would take hooks and config from where it points"
	case "config.worktree":
		return "git reads it as config (with extensions.worktreeConfig), so its commands would run"
	}
	return "a rebase, am or cherry-pick in progress whose todo list git would run on --continue"
}

// recordStates notes which state entries exist in each protected git
// directory and in each worktree administrative directory under it
// (worktrees/NAME: a linked worktree's own HEAD, index and states).
func (g *Guard) recordStates(gitDirs []string) {
	for _, d := range gitDirs {
		g.recordState(d)
		for _, wt := range worktreeDirs(d) {
			g.recordState(wt)
		}
	}
	sort.Strings(g.stateDirs)
}

func (g *Guard) recordState(d string) {
	if _, seen := g.states[d]; seen {
		return
	}
	fd, err := openRoot(d)
	if err != nil {
		return // gone or not a directory: no git directory here to keep
	}
	defer sys.Close(fd)
	had := map[string]bool{}
	for _, n := range stateNames {
		_, had[n], _ = lstatAt(fd, n)
	}
	g.states[d] = had
	g.stateDirs = append(g.stateDirs, d)
}

// worktreeDirs lists the directories under d/worktrees, at most maxMeta.
func worktreeDirs(d string) []string {
	fd, err := openRoot(filepath.Join(d, "worktrees"))
	if err != nil {
		return nil
	}
	defer sys.Close(fd)
	ents, _ := dirNames(fd)
	var out []string
	for i, e := range ents {
		if i == maxMeta {
			break
		}
		if e.dir {
			out = append(out, filepath.Join(d, "worktrees", e.name))
		}
	}
	return out
}

// checkStates moves aside each state entry that appeared during the run,
// and checks each directory's index (index.go).
func (g *Guard) checkStates(res *Result) {
	for _, d := range g.stateDirs {
		fd, err := openRoot(d)
		if err != nil {
			continue // moved aside by now, or gone: git finds nothing there
		}
		for _, n := range stateNames {
			if _, ok, _ := lstatAt(fd, n); ok && !g.states[d][n] {
				g.moveAt(res, fd, d, n, whyState(n))
			} else if ok && g.movedBack(fd, n) {
				g.moveBack(res, fd, d, n)
			}
		}
		g.checkIndex(res, fd, d)
		sys.Close(fd)
	}
}
