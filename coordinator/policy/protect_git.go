package policy

import (
	"bufio"
	"fmt"
	"io"
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

// maxModules bounds the directories looked at for submodule git
// directories under one .git/modules: the submodule git directories and
// their namespace directories, not their insides.
var maxModules = 4096

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
		return gitDirWants(dot) // nothing of it protected: nothing to keep valid
	case fi.IsDir():
		ws, err := gitDirWants(dot)
		return append(ws, validityPins(dot)...), err
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	out := []carveWant{{path: dot, why: whyGitFile, key: ProtectGitLink, required: true}}
	gd, ok := readGitPointer(dot, "gitdir: ")
	if !ok || !inWriteGrant(gd, grants) {
		return out, nil
	}
	ws, err := linkedGitDirWants(gd, grants)
	return append(out, ws...), err
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
func gitDirWants(d string) ([]carveWant, error) {
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
	mods, err := moduleGitDirs(filepath.Join(d, "modules"))
	for _, m := range mods {
		out = append(out, hooksAndConfig(m)...)
	}
	return out, err
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
// read-only `.git` file; and each repository that encloses a write grant
// (Plan.EnclosingRepos), listed once per grant; and each bare repository
// in a write grant (Plan.BareRepos). The launcher checks each
// after the run for what would change what git discovers there (package
// gitguard).
func (p *Plan) ProtectedRepos() []ProtectedRepo {
	var out []ProtectedRepo
	seen := map[string]bool{}
	add := func(root, grant string, own bool) {
		if !seen[root] {
			seen[root] = true
			out = append(out, ProtectedRepo{Root: root, Grant: grant, OwnGitDir: own})
		}
	}
	for _, r := range append(append([]ProtectedRepo{}, p.EnclosingRepos...), p.BareRepos...) {
		seen[r.Root+"\x00"+r.Grant] = true
		out = append(out, r)
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
func linkedGitDirWants(gd string, grants []Grant) ([]carveWant, error) {
	cd, ok := readGitPointer(filepath.Join(gd, "commondir"), "")
	if !ok {
		return gitDirWants(gd)
	}
	out := []carveWant{
		{path: filepath.Join(gd, "commondir"), why: "git worktree commondir", key: ProtectGitLink, required: true},
		{path: filepath.Join(gd, "config.worktree"), why: "git config.worktree", key: ProtectConfig},
	}
	if !inWriteGrant(cd, grants) {
		return out, nil
	}
	ws, err := gitDirWants(cd)
	return append(out, ws...), err
}

// readGitPointer reads the first line of a `.git` file (prefix "gitdir: ")
// or a commondir file (no prefix) and resolves the path it names, relative
// to the file's directory, to its real path.
func readGitPointer(file, prefix string) (string, bool) {
	p, ok := gitPointerTarget(file, prefix)
	if !ok {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	return real, err == nil
}

// gitPointerTarget is the path a git pointer file names, as named
// (relative to the file's directory), unresolved. The file is opened with
// no symlink anywhere on its path (the paths here are real paths): a
// directory swapped for a link after a nested request's path was judged
// cannot make acbox read, and quote, a file the requester cannot see.
func gitPointerTarget(file, prefix string) (string, bool) {
	f, err := openNoLinks(file)
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
	return filepath.Clean(p), true
}

func inWriteGrant(p string, grants []Grant) bool {
	g, ok := innermostGrant(grants, p)
	return ok && g.Write
}

// moduleGitDirs finds the submodule git directories under dir, nested ones
// included, without following symlinks. A directory is one when it holds
// a regular HEAD and directories objects and refs, as git requires; its
// insides are not searched except its own modules (a cloned submodule's
// logs holds a regular HEAD too: the reflog). Any other directory is a
// namespace (modules/vendor/lib) and is searched whole. More than
// maxModules directories looked at refuses the launch: a submodule left
// unfound would keep its hooks and config writable.
func moduleGitDirs(dir string) ([]string, error) {
	s := moduleSearch{top: dir}
	if err := s.walk(dir); err != nil {
		return nil, err
	}
	return s.found, nil
}

type moduleSearch struct {
	top   string
	seen  int
	found []string
}

func (s *moduleSearch) walk(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable here: unreadable for the member too
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if s.seen++; s.seen > maxModules {
			return refuse(s.top, fmt.Sprintf("holds more than %d directories of submodule git directories; acbox keeps each one's hooks and config read-only, and will not leave some unfound", maxModules),
				"grant a narrower directory, or --protect the submodules' hooks and config yourself and pass --unprotect .git/hooks --unprotect .git/config")
		}
		sub := filepath.Join(dir, e.Name())
		if !isGitDir(sub) {
			if err := s.walk(sub); err != nil {
				return err
			}
			continue
		}
		s.found = append(s.found, sub)
		if err := s.walk(filepath.Join(sub, "modules")); err != nil {
			return err
		}
	}
	return nil
}

// isGitDir: a regular HEAD and directories objects and refs, none a link.
func isGitDir(d string) bool {
	head, err := os.Lstat(filepath.Join(d, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, n := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(d, n)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
