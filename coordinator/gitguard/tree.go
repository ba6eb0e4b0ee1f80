package gitguard

import (
	"fmt"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// dirent is one name in a directory listing.
type dirent struct {
	name string
	dir  bool
	lnk  bool
}

// walker visits directories without following links, counting them
// against a budget shared by the whole walk.
type walker struct {
	left  int
	skip  map[string]bool // paths not to enter
	visit func(path string, fd int, has func(string) bool) error
	link  func(dir string, fd int, name string) // each symlink listed; nil: none
}

// names answers whether a listed directory holds a name; nil listing:
// unknown, so every name is looked up.
func names(ents []dirent, listed bool) func(string) bool {
	if !listed {
		return func(string) bool { return true }
	}
	set := make(map[string]bool, 4)
	for _, e := range ents {
		switch e.name {
		case ".git", "HEAD", "objects", "refs":
			set[e.name] = true
		}
	}
	return func(n string) bool { return set[n] }
}

// tree visits root and every directory below it, the insides of `.git`
// directories included: the index can name a gitlink there (.git/x), and
// git status enters it as a submodule.
func (w *walker) tree(root string) error {
	fd, err := openRoot(root)
	if err != nil {
		return nil // gone or unreachable: nothing of it for git to find
	}
	defer sys.Close(fd)
	return w.dir(fd, root, 0)
}

// one visits dir alone.
func (w *walker) one(dir string) error {
	fd, err := openRoot(dir)
	if err != nil {
		return nil
	}
	defer sys.Close(fd)
	ents, err := dirNames(fd)
	return w.visit(dir, fd, names(ents, err == nil))
}

func (w *walker) dir(fd int, path string, depth int) error {
	if w.left--; w.left < 0 {
		return fmt.Errorf("%w: more than %d directories", ErrTooLarge, MaxDirs)
	}
	if depth > MaxDepth {
		return fmt.Errorf("%w: %s is more than %d levels deep", ErrTooLarge, policy.Quote(path), MaxDepth)
	}
	ents, err := dirNames(fd)
	if verr := w.visit(path, fd, names(ents, err == nil)); verr != nil || err != nil {
		return verr // unlistable (not ours): the names below are unknown to the user's shell too
	}
	for _, e := range ents {
		if e.lnk && w.link != nil {
			w.link(path, fd, e.name)
		}
		if !e.dir || w.skip[filepath.Join(path, e.name)] {
			continue
		}
		sub, err := openSub(fd, e.name)
		if err != nil {
			continue // moved aside by the visit, or not a directory any more
		}
		err = w.dir(sub, filepath.Join(path, e.name), depth+1)
		sys.Close(sub)
		if err != nil {
			return err
		}
	}
	return nil
}

// record notes, before the run, that path is a directory, and its `.git`
// entry and bare layout.
func (g *Guard) record(path string, fd int, has func(string) bool) error {
	g.dirs[path] = true
	if e, ok := dotGit(fd, has); ok {
		g.marks[filepath.Join(path, ".git")] = e
	}
	if bareLayout(fd, has) {
		g.bare[path] = true
	}
	return nil
}

// judge moves aside, after the run, a `.git` entry that is not the one
// recorded at that path, and the HEAD of a bare layout that is new.
func (g *Guard) judge(res *Result, path string, fd int, has func(string) bool) {
	dot := filepath.Join(path, ".git")
	if e, ok := dotGit(fd, has); ok {
		if old, had := g.marks[dot]; !had || !sameEntry(old, e) {
			g.moveAt(res, fd, path, ".git", "git run here or in a submodule path would use it instead of the repository's own")
		} else if g.ledger.movedSince(e) {
			g.moveBack(res, fd, path, ".git")
		}
	}
	if bareLayout(fd, has) {
		if !g.bare[path] {
			g.moveAt(res, fd, path, "HEAD", "with objects and refs beside it, git takes this directory for a bare repository")
		} else if g.movedBack(fd, "HEAD") {
			g.moveBack(res, fd, path, "HEAD")
		}
	}
}

// relink moves aside a symlink that stands where a directory stood before
// the run: the user's shell follows it (cd src), and git, run there,
// starts from the directory it names, which the member chose (a git
// directory of its own, or a directory beside one). A link at a new path
// is not judged: git run from a directory the member made is the
// member's own repository.
func (g *Guard) relink(res *Result, dir string, fd int, name string) {
	if g.dirs[filepath.Join(dir, name)] {
		g.moveAt(res, fd, dir, name, "a directory before the run, now a symlink: git run from it would start where the member pointed it")
		res.Findings[len(res.Findings)-1].Was = true
	}
}

// relinkTops does the same for the walked trees' roots and the
// directories between a grant and a repository, which the walk opens by
// path (an open through a link fails, so the walk alone would skip them).
// Shallowest first: a link higher up, once moved, leaves nothing below.
func (g *Guard) relinkTops(res *Result) {
	tops := append(append([]string{}, g.single...), g.roots...)
	sort.Slice(tops, func(i, j int) bool { return len(tops[i]) < len(tops[j]) })
	for _, p := range tops {
		fd, err := openRoot(filepath.Dir(p))
		if err != nil {
			continue
		}
		if e, ok, _ := lstatAt(fd, filepath.Base(p)); ok && e.isLnk() {
			g.relink(res, filepath.Dir(p), fd, filepath.Base(p))
		}
		sys.Close(fd)
	}
}

// dotGit is the directory's `.git` entry, looked up only when listed.
func dotGit(fd int, has func(string) bool) (entry, bool) {
	if !has(".git") {
		return entry{}, false
	}
	e, ok, _ := lstatAt(fd, ".git")
	return e, ok
}

// bareLayout: HEAD, objects and refs all exist (of any type: git follows
// links to judge them, so a link counts).
func bareLayout(fd int, has func(string) bool) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if !has(n) {
			return false
		}
		if _, ok, _ := lstatAt(fd, n); !ok {
			return false
		}
	}
	return true
}

// sameEntry: the same inode of the same type; for a `.git` file also
// unchanged (a rewritten gitdir: line points elsewhere). A directory's
// ctime moves with every file git writes in it, so it is not compared.
func sameEntry(a, b entry) bool {
	same := a.dev == b.dev && a.ino == b.ino && a.mode&unix.S_IFMT == b.mode&unix.S_IFMT
	return same && (a.isDir() || a.ctime == b.ctime)
}

// movedBack: name, in the directory open at fd, is an inode a check moved
// aside since this launch's record (ledger.go).
func (g *Guard) movedBack(fd int, name string) bool {
	e, ok, _ := lstatAt(fd, name)
	return ok && g.ledger.movedSince(e)
}

// moveBack moves aside what another sandbox's check moved aside during
// this run and some member put back.
func (g *Guard) moveBack(res *Result, fd int, dir, name string) {
	g.moveAt(res, fd, dir, name, "another sandbox's check moved it aside during this run, and it was put back; git would use it")
	res.Findings[len(res.Findings)-1].Was = true
}

// moveAt moves name in the directory open at fd aside and records it.
func (g *Guard) moveAt(res *Result, fd int, dir, name, why string) {
	f := Finding{Path: filepath.Join(dir, name), Why: why}
	e, _, _ := lstatAt(fd, name)
	aside, err := moveAside(fd, name)
	if err != nil {
		f.Err = err
	} else {
		g.ledger.moved(e)
		f.Aside = filepath.Join(dir, aside)
		g.asides[f.Aside] = true
	}
	res.Findings = append(res.Findings, f)
}
