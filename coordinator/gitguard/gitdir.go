package gitguard

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/acbox/acbox/coordinator/sys"
)

// maxMeta bounds the entries looked at under one .git/modules and
// .git/worktrees.
const maxMeta = 4096

// record notes a repository's own git directory before the run: HEAD when
// it is valid, whether objects and refs are directories, and the entries
// under modules and worktrees.
func (r *repoState) record(w *walker) error {
	gd, err := r.openGitDir()
	if err != nil {
		return nil // no git directory to keep: the walk judges the tree
	}
	defer sys.Close(gd)
	r.head = readHead(gd)
	for _, n := range []string{"objects", "refs"} {
		e, ok, _ := lstatAt(gd, n)
		r.present[n] = ok && e.isDir()
	}
	return r.listMeta(gd, func(rel string, _ int, _ string) error {
		r.meta[rel] = true
		return nil
	})
}

func (r *repoState) openGitDir() (int, error) {
	root, err := openRoot(r.Root)
	if err != nil {
		return -1, err
	}
	defer sys.Close(root)
	restoreAt(root, ".git", 0o700)
	return openSub(root, ".git")
}

// readHead returns HEAD's content when git would accept it (a link to
// refs/... as the symbolic ref it stands for), else nil.
func readHead(gd int) []byte {
	e, ok, _ := lstatAt(gd, "HEAD")
	switch {
	case !ok:
		return nil
	case e.isLnk():
		if t, err := readlinkAt(gd, "HEAD"); err == nil && ValidHeadLink(t) {
			return []byte("ref: " + t + "\n")
		}
	case e.isReg():
		if b, err := readSmall(gd, "HEAD", maxHead); err == nil && ValidHead(b) {
			return b
		}
	}
	return nil
}

// check, after the run: the owner's permissions on the markers git checks,
// objects and refs still directories, HEAD valid (restored from the record
// otherwise), nothing new under modules and worktrees.
func (r *repoState) check(res *Result, g *Guard) {
	gd, err := r.openGitDir()
	dot := filepath.Join(r.Root, ".git")
	if err != nil {
		res.Findings = append(res.Findings, Finding{Path: dot, Why: "the git directory cannot be opened", Err: err})
		return
	}
	defer sys.Close(gd)
	for _, n := range []string{"objects", "refs"} {
		restoreAt(gd, n, 0o700)
		if e, ok, _ := lstatAt(gd, n); r.present[n] && (!ok || !e.isDir()) {
			res.Findings = append(res.Findings, Finding{Path: filepath.Join(dot, n), Why: "git no longer takes .git for a git directory without it",
				Err: errors.New("it is missing or not a directory")})
		}
	}
	r.checkHead(res, g, gd, dot)
	err = r.listMeta(gd, func(rel string, fd int, name string) error {
		if !r.meta[rel] && !g.asides[filepath.Join(dot, rel)] {
			g.moveAt(res, fd, filepath.Join(dot, filepath.Dir(rel)), name, "a git directory for a submodule or worktree the member added")
			return errSkip
		}
		if r.meta[rel] && g.movedBack(fd, name) {
			g.moveBack(res, fd, filepath.Join(dot, filepath.Dir(rel)), name)
			return errSkip
		}
		return nil
	})
	if err != nil {
		res.Findings = append(res.Findings, Finding{Path: filepath.Join(dot, "modules"), Why: "the submodule git directories could not be checked", Err: err})
	}
}

// checkHead restores HEAD when git would no longer accept it.
func (r *repoState) checkHead(res *Result, g *Guard, gd int, dot string) {
	restoreAt(gd, "HEAD", 0o600)
	if readHead(gd) != nil {
		return
	}
	if r.head == nil {
		return // not valid before the run either: git fell back then too, and the walk judges where to
	}
	f := Finding{Path: filepath.Join(dot, "HEAD"), Why: "git would no longer take .git for a git directory and fall back to another one"}
	if _, ok, _ := lstatAt(gd, "HEAD"); ok {
		aside, err := moveAside(gd, "HEAD")
		if err != nil {
			f.Err = fmt.Errorf("moving it aside: %w", err)
			res.Findings = append(res.Findings, f)
			return
		}
		f.Why += "; the member's HEAD is at " + filepath.Join(dot, aside)
	}
	if err := createFile(gd, "HEAD", r.head); err != nil {
		f.Err = fmt.Errorf("writing it back: %w", err)
	}
	res.Findings = append(res.Findings, f)
}

// errSkip tells listMeta not to descend into an entry.
var errSkip = errors.New("skip")

// listMeta calls fn for each entry under .git/worktrees (one level) and
// .git/modules (namespace directories, and each submodule git
// directory's own modules), with its path relative to .git, the
// descriptor of its directory and its name.
func (r *repoState) listMeta(gd int, fn func(rel string, fd int, name string) error) error {
	left := maxMeta
	for _, top := range []string{"worktrees", "modules"} {
		fd, err := openSub(gd, top)
		if err != nil {
			continue
		}
		err = metaDir(fd, top, top == "modules", &left, fn)
		sys.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

func metaDir(fd int, rel string, deep bool, left *int, fn func(string, int, string) error) error {
	ents, err := dirNames(fd)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if *left--; *left < 0 {
			return fmt.Errorf("more than %d entries", maxMeta)
		}
		err := fn(filepath.Join(rel, e.name), fd, e.name)
		if err == errSkip || !deep || !e.dir {
			continue
		}
		if err != nil {
			return err
		}
		if err := metaSub(fd, e.name, filepath.Join(rel, e.name), left, fn); err != nil {
			return err
		}
	}
	return nil
}

// metaSub descends into a modules entry: a submodule git directory (it
// holds HEAD) only through its own modules, a namespace directory whole.
func metaSub(parent int, name, rel string, left *int, fn func(string, int, string) error) error {
	sub, err := openSub(parent, name)
	if err != nil {
		return nil
	}
	defer sys.Close(sub)
	if _, isGitDir, _ := lstatAt(sub, "HEAD"); !isGitDir {
		return metaDir(sub, rel, true, left, fn)
	}
	mods, err := openSub(sub, "modules")
	if err != nil {
		return nil
	}
	defer sys.Close(mods)
	return metaDir(mods, filepath.Join(rel, "modules"), true, left, fn)
}
