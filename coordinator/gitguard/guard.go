package gitguard

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Repo is a repository whose git discovery is kept: its work tree root,
// the write grant holding it (or, for a repository that encloses a grant,
// the grant it encloses), and whether Root/.git is its git directory
// (false: a `gitdir:` file, whose target git validates without falling
// back, or a git directory outside every write grant).
type Repo struct {
	Root, Grant string
	OwnGitDir   bool
}

// Bounds of the walk, across all repositories of one launch.
const (
	MaxDirs  = 100_000
	MaxDepth = 200
)

// ErrTooLarge marks a work tree too large to check; Watch returns it
// before anything runs.
var ErrTooLarge = errors.New("work tree too large to check for git redirects")

// Guard is what git discovery looked like before the run.
type Guard struct {
	repos     []repoState
	states    map[string]map[string]bool // per git directory, which stateNames existed
	stateDirs []string                   // the keys of states, sorted
	dirs      map[string]bool            // every directory walked, by path
	marks     map[string]entry           // every `.git` entry in the walked trees, by path
	bare      map[string]bool            // directories that held HEAD, objects and refs
	roots     []string                   // the work trees walked
	single    []string                   // directories looked at alone (between a grant and a repository)
	asides    map[string]bool            // what Check moved aside: not walked, not judged again
	ledger    *ledger                    // what any check moved aside, across sandboxes (ledger.go); nil: none kept
}

// repoState is one repository's own git directory before the run.
type repoState struct {
	Repo
	head    []byte          // HEAD to restore (nil: it was not valid)
	meta    map[string]bool // entries under .git/modules and .git/worktrees, relative to .git
	present map[string]bool // whether objects and refs were directories
}

// Watch records the repositories' state before the run. gitDirs are the
// other protected git directories (submodules', linked worktrees'), whose
// state entries and index are checked like the repositories' own. It fails with ErrTooLarge when the work
// trees hold more than MaxDirs directories or go deeper than MaxDepth.
func Watch(repos []Repo, gitDirs []string) (*Guard, error) {
	return WatchLedger(repos, gitDirs, "")
}

// WatchLedger is Watch keeping the ledger of what checks moved aside in
// the directory ledgerDir (ledger.go); "" keeps none.
func WatchLedger(repos []Repo, gitDirs []string, ledgerDir string) (*Guard, error) {
	if !supported {
		return nil, fmt.Errorf("git discovery cannot be checked on this platform: %w", syscall.ENOSYS)
	}
	g := &Guard{states: map[string]map[string]bool{}, dirs: map[string]bool{}, marks: map[string]entry{}, bare: map[string]bool{}, asides: map[string]bool{},
		ledger: &ledger{dir: ledgerDir, since: time.Now()}}
	g.plan(repos)
	w := &walker{left: MaxDirs, visit: g.record}
	if err := g.walkAll(w); err != nil {
		return nil, err
	}
	for _, r := range repos {
		st := repoState{Repo: r, meta: map[string]bool{}, present: map[string]bool{}}
		if r.OwnGitDir {
			if err := st.record(w); err != nil {
				return nil, err
			}
		}
		g.repos = append(g.repos, st)
		if r.OwnGitDir {
			gitDirs = append(gitDirs, filepath.Join(r.Root, ".git"))
		}
	}
	g.recordStates(gitDirs)
	return g, nil
}

// plan picks the trees to walk: each repository's work tree unless it
// lies in another one's, and the directories between its grant and it.
// A repository whose work tree holds its grant (it encloses the grant:
// -w ~/repo/src) has the grant walked: the member writes nothing else of
// it, and a new .git anywhere in the grant, its root included, is what git
// run from there would find first.
func (g *Guard) plan(repos []Repo) {
	var roots []string
	for _, r := range repos {
		roots = append(roots, r.walkRoot())
	}
	sort.Strings(roots)
	for _, r := range roots {
		if len(g.roots) == 0 || !within(r, g.roots[len(g.roots)-1]) {
			g.roots = append(g.roots, r)
		}
	}
	seen := map[string]bool{}
	for _, r := range repos {
		for d := filepath.Dir(r.Root); within(d, r.Grant) && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if !g.inRoots(d) {
				g.single = append(g.single, d)
			}
			if d == r.Grant {
				break
			}
		}
	}
	sort.Strings(g.single)
}

// walkRoot is the part of the repository's work tree the member can
// write: all of it, or the grant when the work tree encloses the grant.
func (r Repo) walkRoot() string {
	if r.Grant != "" && !within(r.Root, r.Grant) && within(r.Grant, r.Root) {
		return r.Grant
	}
	return r.Root
}

func (g *Guard) inRoots(d string) bool {
	for _, r := range g.roots {
		if within(d, r) {
			return true
		}
	}
	return false
}

func (g *Guard) walkAll(w *walker) error {
	for _, r := range g.roots {
		if err := w.tree(r); err != nil {
			return err
		}
	}
	for _, d := range g.single {
		if err := w.one(d); err != nil {
			return err
		}
	}
	return nil
}

// Finding is one thing the member left that changes what git discovers.
type Finding struct {
	Path  string // what was found
	Why   string // what git would do with it
	Aside string // where it was moved; "" when restored in place
	Err   error  // it could not be undone
	Was   bool   // Path was there before the run, changed since (else it is new)
}

// String is the finding as acbox prints it. Path and Aside are named by
// the member (a directory it made): each is quoted (policy.Quote), so no
// name can rewrite or hide acbox's lines on the terminal.
func (f Finding) String() string {
	path, aside := policy.Quote(f.Path), policy.Quote(f.Aside)
	switch {
	case f.Err != nil:
		return fmt.Sprintf("%s: %s, and acbox could not undo it (%v): inspect %s and remove or restore it before running git in that repository", path, f.Why, f.Err, path)
	case f.Aside != "" && f.Was:
		return fmt.Sprintf("%s was changed during the run (%s); moved to %s", path, f.Why, aside)
	case f.Aside != "":
		return fmt.Sprintf("%s appeared during the run (%s); moved to %s", path, f.Why, aside)
	}
	return fmt.Sprintf("%s was changed during the run (%s); restored", path, f.Why)
}

// Result is what Check found and did.
type Result struct{ Findings []Finding }

// Failed reports whether anything could not be undone.
func (r *Result) Failed() bool {
	for _, f := range r.Findings {
		if f.Err != nil {
			return true
		}
	}
	return false
}

// Paths lists the paths found, sorted.
func (r *Result) Paths() []string {
	out := []string{}
	for _, f := range r.Findings {
		out = append(out, f.Path)
	}
	sort.Strings(out)
	return out
}

// Check undoes, after the run, whatever changed what git discovers. Every
// process of the sandbox must have ended.
func (g *Guard) Check() *Result {
	res := &Result{}
	for i := range g.repos {
		if g.repos[i].OwnGitDir {
			g.repos[i].check(res, g)
		}
	}
	g.checkStates(res)
	g.relinkTops(res)
	w := &walker{left: MaxDirs, skip: g.asides, visit: func(path string, fd int, has func(string) bool) error {
		g.judge(res, path, fd, has)
		return nil
	}, link: func(dir string, fd int, name string) { g.relink(res, dir, fd, name) }}
	if err := g.walkAll(w); err != nil {
		res.Findings = append(res.Findings, Finding{Path: strings.Join(g.roots, " "), Why: "the work tree could not be checked for new git directories", Err: err})
	}
	return res
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/") || dir == "/"
}
