package coordinator

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The built-in carve-outs of one write grant: the repository at its root.
//
//   - .git is a directory: its hooks and config; the hooks and config of
//     each submodule's git directory under .git/modules; the commondir and
//     config.worktree of each linked worktree under .git/worktrees (a
//     rewritten commondir would point that worktree, wherever it is, at
//     hooks the member wrote).
//   - .git is a file (`gitdir: PATH`, a worktree or a submodule): the file
//     itself, then, when PATH resolves into a write grant, PATH's own
//     carve-outs: for a worktree its commondir and config.worktree and the
//     common directory's hooks and config; otherwise PATH's hooks and
//     config. A git directory outside every write grant is read-only or not
//     shown at all, and needs nothing.
//   - .git is a symlink: refused unless every built-in is dropped, since
//     the member could replace the link.
//
// The repositories below the grant's root that protect_search.go finds get
// the same, each from its own root.

// maxModules bounds the walk for submodule git directories.
const maxModules = 256

func gitWants(root string, grants []Grant, drop map[string]bool) ([]carveWant, error) {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil:
		return nil, nil
	case fi.Mode()&os.ModeSymlink != 0:
		if drop[ProtectHooks] && drop[ProtectConfig] && drop[ProtectGitLink] {
			return nil, nil
		}
		return nil, refuse(dot, "is a symlink: a member could replace it with a git directory of its own, whose hooks git would run outside the sandbox",
			"make it a `gitdir:` file or move the git directory here, or pass --unprotect .git/hooks --unprotect .git/config --unprotect .git")
	case fi.IsDir() && drop[ProtectHooks] && drop[ProtectConfig]:
		return gitDirWants(dot), nil // nothing of it protected: nothing to keep valid
	case fi.IsDir():
		return append(gitDirWants(dot), validityPins(dot)...), nil
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	out := []carveWant{{path: dot, why: whyGitFile, key: ProtectGitLink, required: true}}
	gd, ok := readGitPointer(dot, "gitdir: ")
	if !ok || !inWriteGrant(gd, grants) {
		return out, nil
	}
	return append(out, linkedGitDirWants(gd, grants)...), nil
}

// validityPins keep a repository's own git directory valid: git takes a
// directory for a git directory only while it holds HEAD, objects and
// refs, and when .git stops being one, git falls back to the work tree
// itself or a directory above it, which the member can fill with a config
// of its own. objects and refs are pinned (they cannot be renamed or
// removed); HEAD must stay replaceable (git renames HEAD.lock over it), so
// the launcher checks it after the run (package gitguard). A marker that
// is missing or not a real directory at launch gets no pin: the check after
// the run judges the repository as it finds it.
func validityPins(gitDir string) []carveWant {
	var out []carveWant
	for _, name := range []string{"objects", "refs"} {
		out = append(out, carveWant{path: filepath.Join(gitDir, name), why: "git " + name + " (keeps .git a git directory)", key: ProtectGitLink, pin: true})
	}
	return out
}

// gitDirWants: a full git directory (a repository's own, or a submodule's).
func gitDirWants(d string) []carveWant {
	out := hooksAndConfig(d)
	out = append(out, carveWant{path: filepath.Join(d, "config.worktree"), why: "git config.worktree", key: ProtectConfig})
	entries, _ := os.ReadDir(filepath.Join(d, "worktrees"))
	for _, e := range entries {
		if e.IsDir() {
			wt := filepath.Join(d, "worktrees", e.Name())
			out = append(out,
				carveWant{path: filepath.Join(wt, "commondir"), why: "git worktree commondir", key: ProtectGitLink},
				carveWant{path: filepath.Join(wt, "config.worktree"), why: "git config.worktree", key: ProtectConfig})
		}
	}
	for _, m := range moduleGitDirs(filepath.Join(d, "modules")) {
		out = append(out, hooksAndConfig(m)...)
	}
	return out
}

// The reasons of the carve-outs that mark a git directory's own hooks and
// config; ProtectedGitDirs finds the directories by them.
const (
	whyHooks   = "git hooks"
	whyConfig  = "git config"
	whyGitFile = ".git (gitdir: file)"
)

func hooksAndConfig(d string) []carveWant {
	return []carveWant{
		{path: filepath.Join(d, "hooks"), why: whyHooks, key: ProtectHooks, required: true},
		{path: filepath.Join(d, "config"), why: whyConfig, key: ProtectConfig, required: true},
	}
}

// ProtectedGitDirs lists the git directories whose hooks or config the
// plan keeps read-only. A `commondir` file created in one of them would
// make git take hooks and config from wherever it points; no mount can
// stop that (there is no file to bind over), so the launcher checks for it
// after the run (cmd/acbox/gitredirect.go).
func (p *Plan) ProtectedGitDirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range p.Protected {
		if c.Mode != CarveReadOnly || (c.Why != whyHooks && c.Why != whyConfig) {
			continue
		}
		if d := filepath.Dir(c.Path); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// ProtectedRepo is a repository whose git directory the plan protects:
// its work tree root, the write grant holding it, and whether Root/.git is
// the git directory itself (false: a `gitdir:` file).
type ProtectedRepo struct {
	Root, Grant string
	OwnGitDir   bool
}

// ProtectedRepos lists the repositories the plan protects, from their
// carve-outs: a repository's own hooks or config at ROOT/.git/..., or its
// read-only `.git` file. The launcher checks each after the run for what
// would change what git discovers there (package gitguard).
func (p *Plan) ProtectedRepos() []ProtectedRepo {
	var out []ProtectedRepo
	seen := map[string]bool{}
	add := func(root, grant string, own bool) {
		if !seen[root] {
			seen[root] = true
			out = append(out, ProtectedRepo{Root: root, Grant: grant, OwnGitDir: own})
		}
	}
	for _, c := range p.Protected {
		switch {
		case c.Mode != CarveReadOnly:
		case (c.Why == whyHooks || c.Why == whyConfig) && filepath.Base(filepath.Dir(c.Path)) == ".git":
			add(filepath.Dir(filepath.Dir(c.Path)), c.Grant, true)
		case c.Why == whyGitFile:
			add(filepath.Dir(c.Path), c.Grant, false)
		}
	}
	return out
}

// linkedGitDirWants: the git directory a `.git` file names. A worktree's
// has a commondir file naming the shared directory, where hooks and config
// live.
func linkedGitDirWants(gd string, grants []Grant) []carveWant {
	cd, ok := readGitPointer(filepath.Join(gd, "commondir"), "")
	if !ok {
		return gitDirWants(gd)
	}
	out := []carveWant{
		{path: filepath.Join(gd, "commondir"), why: "git worktree commondir", key: ProtectGitLink, required: true},
		{path: filepath.Join(gd, "config.worktree"), why: "git config.worktree", key: ProtectConfig},
	}
	if inWriteGrant(cd, grants) {
		out = append(out, gitDirWants(cd)...)
	}
	return out
}

// readGitPointer reads the first line of a `.git` file (prefix "gitdir: ")
// or a commondir file (no prefix) and resolves the path it names, relative
// to the file's directory, to its real path.
func readGitPointer(file, prefix string) (string, bool) {
	f, err := openNoFollow(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, prefix) || len(line) == len(prefix) {
		return "", false
	}
	p := line[len(prefix):]
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(file), p)
	}
	real, err := filepath.EvalSymlinks(p)
	return real, err == nil
}

func inWriteGrant(p string, grants []Grant) bool {
	g, ok := innermostGrant(grants, p)
	return ok && g.Write
}

// moduleGitDirs finds submodule git directories (those holding HEAD) under
// dir, nested ones included, without following symlinks; at most
// maxModules directories are looked at.
func moduleGitDirs(dir string) []string {
	var out []string
	seen := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if seen++; seen > maxModules {
			return filepath.SkipAll
		}
		if p == dir {
			return nil
		}
		if fi, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
		switch d.Name() {
		case "objects", "refs", "logs", "hooks", "info", "worktrees":
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
