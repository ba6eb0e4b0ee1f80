package policy

import (
	"os"
	"path/filepath"
)

// core.hooksPath moves a repository's hooks out of .git/hooks, often into
// the work tree (husky's .husky, .githooks). When the user's config (the
// system and global files, the repository's read-only config and what
// they include) points it into a write grant, that directory is a required
// read-only carve-out of the repository, like .git/hooks: the member could
// otherwise plant a hook there that the user's next commit runs. Dropped
// with --unprotect hookspath; skipped when the repository's config is
// unprotected (the member can then point core.hooksPath anywhere).

// whyHooksPath is the reason recorded for the carve-out.
const whyHooksPath = "git core.hooksPath"

// hooksPathWants: the carve-out for the hooks directory core.hooksPath
// names for the repository whose work tree is root.
func hooksPathWants(root string, p *Plan) ([]carveWant, error) {
	local, err := repoConfigFiles(root, p.requester)
	if local == nil || err != nil {
		return nil, err
	}
	trusted := map[string]bool{}
	for _, f := range local {
		trusted[f] = true
	}
	files := append(globalGitConfigs(p.Home), local...)
	cands, err := hooksPathCandidates(files, p, trusted)
	if err != nil {
		return nil, err
	}
	var out []carveWant
	for _, c := range cands {
		if c == "" {
			continue
		}
		dir, err := hooksDir(c, root, p)
		if err != nil {
			return nil, err
		}
		if g, ok := innermostGrant(p.Grants, dir); ok && g.Write && g.Path == dir {
			return nil, refuse(dir, "is a write grant and the hooks directory (core.hooksPath) of the repository at "+root+": the member could plant hooks that git outside runs",
				"keep the hooks in a directory of their own inside the grant, or pass --unprotect hookspath")
		}
		out = append(out, carveWant{path: dir, why: whyHooksPath, key: ProtectHooksPath, required: true})
	}
	return out, nil
}

// hooksDir: a core.hooksPath value as a path. A relative one is relative
// to the work tree's root, where git runs hooks.
func hooksDir(v, root string, p *Plan) (string, error) {
	d, err := gitExpandHome(v, p.Home)
	if err != nil {
		return "", refuse(root, "core.hooksPath names another user's home (~name), which acbox does not look up", "set core.hooksPath to an absolute path, or pass --unprotect hookspath")
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(root, d)
	}
	return resolveOutsideGrants(filepath.Clean(d), p.Grants)
}

// globalGitConfigs: the system file, then $XDG_CONFIG_HOME/git/config (or
// ~/.config/git/config), then ~/.gitconfig, in git's order.
func globalGitConfigs(home string) []string {
	xdg := filepath.Join(home, ".config")
	if v, ok := gitLookupEnv("XDG_CONFIG_HOME"); ok && filepath.IsAbs(v) {
		xdg = v
	}
	return []string{systemGitConfig, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
}

// repoConfigFiles: the repository's own config and config.worktree (nil
// when root holds no repository). Inside a write grant both are read-only
// carve-outs of protect_git.go. For a nested launch, where a pointer the
// requesting sandbox may write (a `.git` file, a commondir file) leads is
// judged for it (requester.go) before anything is read there: a pointer
// into a place it cannot see is refused whether or not that place exists
// (it was read as the user's own config, an existence oracle).
func repoConfigFiles(root string, requester *Plan) ([]string, error) {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil || fi.Mode()&os.ModeSymlink != 0:
		return nil, nil
	case fi.IsDir():
		return []string{filepath.Join(dot, "config"), filepath.Join(dot, "config.worktree")}, nil
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	gd, ok, err := followGitPointer(dot, "gitdir: ", requester)
	if !ok || err != nil {
		return nil, err
	}
	common := gd
	cd, ok, err := followGitPointer(filepath.Join(gd, "commondir"), "", requester)
	if err != nil {
		return nil, err
	}
	if ok {
		common = cd
	}
	return []string{filepath.Join(common, "config"), filepath.Join(gd, "config.worktree")}, nil
}

// followGitPointer is readGitPointer, but a pointer file the requester
// may write has its target judged once for it instead of resolved.
func followGitPointer(file, prefix string, requester *Plan) (string, bool, error) {
	if requester == nil || !requester.mayWrite(file) {
		real, ok := readGitPointer(file, prefix)
		return real, ok, nil
	}
	p, ok := gitPointerTarget(file, prefix)
	if !ok {
		return "", false, nil
	}
	j, err := judgeNamed(requester, p, "is named by "+file+", a git pointer the requesting sandbox may write, but")
	if err != nil || j.info == nil {
		return "", false, err
	}
	return j.real, true, nil
}
