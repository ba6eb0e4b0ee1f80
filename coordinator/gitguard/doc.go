// Package gitguard keeps git discovery where it was across a sandbox run.
//
// A member with a write grant over a repository cannot write its hooks or
// config (read-only carve-outs, coordinator/policy/protect.go), but it can change
// which git directory the user's git finds afterwards, and that directory's
// config runs commands (core.fsmonitor, core.hooksPath, filters, pagers):
//
//   - make .git stop being a git directory (an invalid HEAD), so that git
//     falls back to the work tree itself laid out as a bare repository, or
//     to a directory above it;
//   - create a `.git` file (`gitdir: ELSEWHERE`) or directory, or a bare
//     layout (HEAD, objects, refs), in a directory of the work tree that
//     the user may run git from;
//   - add a submodule or worktree: a new git directory under .git/modules
//     or .git/worktrees, and a `.git` that points at it (git status enters
//     a submodule on its own once the index names it);
//   - name a gitlink in the index at any path, `.git/x` or `../x` included
//     (git checks paths when it writes the index, not when it reads it),
//     beside a repository of its own there;
//   - replace a directory of the work tree by a symlink to a directory of
//     its choice: the user's `cd src` follows it, and git starts there;
//   - create .git/commondir (sends git elsewhere for hooks and config) or
//     .git/config.worktree (read as config once extensions.worktreeConfig
//     is set), or leave a rebase in progress with `exec` lines.
//
// [Watch] records, before the run, what each protected repository looks
// like to git discovery: the content of HEAD, every directory of its work
// tree (the insides of `.git` included) with its `.git` entry and bare
// layout, the directories between the write grant and it, the entries
// under .git/modules and .git/worktrees, and which state entries
// (commondir, config.worktree, rebase and sequencer directories) each
// protected git directory and worktree holds. [Guard.Check], after the
// run, gives the owner's permissions back where the member took them,
// restores an invalid HEAD from the record, and moves aside under an
// unguessable name (NAME.acbox-quarantine-RANDOM) everything new, every
// symlink standing where a directory stood, and every index that names a
// path git would never write. It never runs git, never follows a symlink
// (every directory is opened relative to its parent with O_NOFOLLOW, every
// entry is judged by lstat), and reads nothing the member wrote except
// HEAD, which it only validates, and the index, which it parses as data.
//
//	g, err := gitguard.Watch(repos, gitDirs) // before the member starts
//	res := g.Check()                         // after every process of the sandbox ended
//	for _, f := range res.Findings { fmt.Fprintln(os.Stderr, f) }
//	if res.Failed() { ... }                  // the launcher exits 124
//
// # The launcher's use
//
// [WatchPlan] takes the repositories and git directories a plan protects
// (policy.Plan.ProtectedRepos, ProtectedGitDirs) and records them before
// the launch; a work tree too large to check is refused then, with class
// policy.ErrRefused. [Redirects.Quarantine], after the run, runs Check,
// names each finding on the member's standard error, and returns the
// paths for the report's exit_scan.git_redirects; anything it could not
// undo is an error of class policy.ErrUnchecked (acbox exits 124):
//
//	r, err := gitguard.WatchPlan(plan)  // before the launch
//	moved, err := r.Quarantine(os.Stderr) // after every process ended
//
// Until the run ends, git used outside in such a repository follows the
// member's changes.
//
// Every check notes what it moves aside, by inode, in a ledger shared by
// the user's launches ([WatchLedger], ledger.go): an entry a sandbox
// recorded at launch that another sandbox's check moved aside during its
// run, and that some member put back, is moved aside again.
//
// # Limits
//
// The walk looks at every directory of each protected work tree, its git
// directories included, at most
// [MaxDirs] directories and [MaxDepth] levels in all; a work tree larger
// than that is refused by Watch rather than checked in part. A repository
// the member creates inside a protected work tree has its `.git` moved
// aside too (git status would enter it as a submodule); one it creates
// elsewhere is its own. A repository whose work tree holds a write grant
// (Repo.Grant inside Repo.Root) has the grant walked instead of its work
// tree: the member writes nothing else of it. A repository that was already there, deeper than
// the carve-outs reach, or a bare repository kept inside a work tree, is
// not protected: its config stays writable. An index larger than 512 MiB,
// or one this package cannot parse (a version after 4), is moved aside
// like one naming a bad path: git would read what it cannot judge. A
// symlink that was already there at launch is not judged: it leads where
// the user made it lead.
//
// # Platforms
//
// Linux only (openat2, renameat2); elsewhere Watch returns ENOSYS.
package gitguard
