package policy

import (
	"os"
	"path/filepath"
)

// A bare repository in a write grant (remote.git, a mirror, a backup
// remote; Go keeps one per module source under ~/go/pkg/mod/cache/vcs) has
// no .git: the directory itself is the git directory. `git push` to it
// runs its hooks (pre-receive, post-receive...) and reads its config, so
// one at the grant's root or up to repoSearchDepth levels below it gets
// the carve-outs of a repository's own git directory: hooks and config
// read-only (required: a missing one could be created), config.worktree,
// its worktrees' commondir and config.worktree, its submodules' hooks and
// config, and objects and refs pinned so that it stays a git directory.
// It is listed in Plan.BareRepos, and the check after the run (package
// gitguard) walks it and moves aside a new .git inside it (git push tries
// DIR/.git before DIR) or any other new git directory there.

// bareWants: the carve-outs of the bare repositories found in the write
// grant at root (bares, and root itself when it is one), less the dropped;
// each is added to p.BareRepos.
func bareWants(root string, bares []string, p *Plan, drop map[string]bool) ([]carveWant, error) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil && isGitDir(root) {
		bares = append([]string{root}, bares...)
	}
	var out []carveWant
	for _, b := range bares {
		ws, err := gitDirWants(b)
		if err != nil {
			return nil, err
		}
		if !drop[ProtectHooks] || !drop[ProtectConfig] {
			ws = append(ws, validityPins(b)...)
		}
		for _, w := range ws {
			if !drop[w.key] {
				out = append(out, w)
			}
		}
		p.BareRepos = append(p.BareRepos, ProtectedRepo{Root: b, Grant: root})
	}
	return out, nil
}
