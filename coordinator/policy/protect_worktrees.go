package policy

import (
	"os"
	"path/filepath"
)

// A linked worktree (git worktree add) can lie anywhere, deeper than the
// repository search reaches or in another write grant. Its git
// directory's commondir and config.worktree are carve-outs of the
// repository (gitDirWants), but the worktree's own `.git` file and the
// hooks directory a relative core.hooksPath names in it belong to the
// worktree: left writable, the member could point the `.git` file at a
// git directory of its own, or plant a hook the user's next commit there
// runs. So every worktree a protected repository lists
// (GITDIR/worktrees/NAME/gitdir names its `.git` file) whose root lies in
// a write grant is protected as a repository of its own, whatever its
// depth: its `.git` file read-only, its hooksPath directory, and the
// check after the run over its work tree.

// listedWorktrees returns the roots of the linked worktrees listed by the
// git directories of repos (each a work tree's root, or a bare
// repository), less those in repos already, that lie in a write grant.
func listedWorktrees(repos []string, grants []Grant) []string {
	have := map[string]bool{}
	for _, r := range repos {
		have[r] = true
	}
	var out []string
	for _, r := range repos {
		gd := commonGitDir(r)
		if gd == "" {
			continue
		}
		entries, _ := os.ReadDir(filepath.Join(gd, "worktrees"))
		for i, e := range entries {
			if i == maxModules {
				break
			}
			dot, ok := readGitPointer(filepath.Join(gd, "worktrees", e.Name(), "gitdir"), "")
			root := filepath.Dir(dot)
			if ok && e.IsDir() && !have[root] && inWriteGrant(root, grants) {
				have[root] = true
				out = append(out, root)
			}
		}
	}
	return out
}

// commonGitDir is the git directory holding the worktrees list of the
// repository at r: r/.git, the common directory a `.git` file leads to,
// or r itself when it is a bare repository; "" for none.
func commonGitDir(r string) string {
	dot := filepath.Join(r, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil && isGitDir(r):
		return r
	case err != nil || fi.Mode()&os.ModeSymlink != 0:
		return ""
	case fi.IsDir():
		return dot
	}
	gd, ok := readGitPointer(dot, "gitdir: ")
	if !ok {
		return ""
	}
	if cd, ok := readGitPointer(filepath.Join(gd, "commondir"), ""); ok {
		return cd
	}
	return gd
}
