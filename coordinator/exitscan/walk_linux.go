package exitscan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/dirents"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// The walk. It never follows a symlink: each grant is opened with
// openat2(RESOLVE_NO_SYMLINKS), every directory below relative to its
// parent with O_NOFOLLOW, every entry is fstatat'd with
// AT_SYMLINK_NOFOLLOW. It holds one descriptor per level and goes at most
// maxDepth levels down, so a member that nests directories past the
// descriptor limit gets "too deep, not checked" instead of a silent skip.
//
// A directory the walk after the run cannot open is not skipped quietly
// (a member could hide a set-id file under a `chmod 000` directory):
//
//   - one this process owns gets its owner permissions back (through an
//     O_PATH descriptor of exactly that inode) and is opened again;
//   - one it does not own that nobody with its credentials could enter
//     (no search permission) and whose ctime predates the launch is
//     skipped: the member, holding the same credentials, could not have
//     entered or changed it either;
//   - anything else is named as not checked (exit 124).
//
// A symlink's target is judged as written (made absolute against the
// link's directory), not resolved.

// maxDepth bounds the levels below a grant the walk descends, and so
// the descriptors it holds (the hard limit here is 20,000).
const maxDepth = 1000

type walker struct {
	plan  *policy.Plan
	snap  *snapshot
	left  int
	roots map[string]bool
	since time.Time // the launch, less the clock's slack
	// after: the walk after the run, which clears set-id bits, gives
	// directories back their owner permissions and names what it cannot
	// check. The walk before the run changes nothing.
	after bool
	// recentOnly keeps only set-id files and devices changed since, and
	// skips fifos and symlinks: the one walk without --report.
	recentOnly bool
	prior      *snapshot // the walk before the run, with --report
	// listed: what the repository search read, for the walk before the
	// run (walk_listed_linux.go); nil after it.
	listed  *policy.Listings
	readers []*dirents.Reader // one per level: a read is nested in its parent's
	// noXattrat: getxattrat is missing or refused; read file
	// capabilities through /proc/self/fd (filecaps_linux.go)
	noXattrat bool
}

// levelBuf is each level's getdents buffer: most directories in one call,
// and at most 8 MiB at the deepest walk.
const levelBuf = 8 << 10

// reader is the getdents reader of the level depth.
func (w *walker) reader(depth int) *dirents.Reader {
	for len(w.readers) <= depth {
		w.readers = append(w.readers, dirents.NewReader(levelBuf))
	}
	return w.readers[depth]
}

// walkGrants walks the plan's write grants, persisted home and read-write
// mounts (policy.Plan.ScanRoots, ScanFiles) with w.
func walkGrants(p *policy.Plan, w *walker) *snapshot {
	w.plan, w.snap, w.left, w.roots = p, newSnapshot(), Cap, map[string]bool{}
	for _, g := range p.ScanRoots() {
		w.roots[g] = true
	}
	for _, g := range p.ScanRoots() {
		if recs, ok := w.listed.Dir(g); ok {
			w.listedDir(func() (int, bool) { return w.openRoot(g) }, g, recs, 0)
		} else if fd, ok := w.openRoot(g); ok {
			w.dir(fd, g, 0)
		}
	}
	for _, f := range p.ScanFiles() {
		w.file(f)
	}
	if w.left < 0 {
		w.snap.truncated = true
		if w.after { // acbox's words, not a path: not quoted
			w.snap.unchecked = append(w.snap.unchecked, fmt.Sprintf("everything past the first %d entries of the write grants: the exit scan stops there", Cap))
		}
	}
	return w.snap
}

// openRoot opens a grant through its parent, resolving no symlink.
func (w *walker) openRoot(g string) (int, bool) {
	parent, err := sys.Openat2(unix.AT_FDCWD, filepath.Dir(g), &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		w.failed(g, err)
		return -1, false
	}
	defer sys.Close(parent)
	return w.openDir(parent, filepath.Base(g), g)
}

// file looks at a read-write file mount f as at an entry of a grant,
// through its parent, resolving no symlink.
func (w *walker) file(f string) {
	parent, err := sys.Openat2(unix.AT_FDCWD, filepath.Dir(f), &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		w.failed(f, err)
		return
	}
	defer sys.Close(parent)
	var st unix.Stat_t
	if err := sys.Fstatat(parent, filepath.Base(f), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		w.failed(f, err)
		return
	}
	if w.left--; st.Mode&unix.S_IFMT == unix.S_IFREG {
		w.stated(parent, filepath.Dir(f), filepath.Base(f), st, 0)
	}
}

// openDir opens the directory name in dirfd (path), never a link.
func (w *walker) openDir(dirfd int, name, path string) (int, bool) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := sys.Openat(dirfd, name, flags, 0)
	if err == nil {
		return fd, true
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return -1, false // gone, or not a directory (any more): nothing below it
	}
	if !w.after {
		return -1, false // the walk after the run judges it
	}
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		switch w.denied(dirfd, name) {
		case deniedRestored:
			if fd, err = sys.Openat(dirfd, name, flags, 0); err == nil {
				return fd, true
			}
		case deniedUnchanged:
			return -1, false
		}
	}
	w.failed(path, err)
	return -1, false
}

type denial int

const (
	deniedOther     denial = iota
	deniedRestored         // this process owns it and gave itself rwx back
	deniedUnchanged        // not ours, not searchable, unchanged since the launch
)

// denied judges a directory the walk may not open (see the file comment).
func (w *walker) denied(dirfd int, name string) denial {
	var st unix.Stat_t
	if sys.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return deniedOther
	}
	if int(st.Uid) == os.Geteuid() {
		if restoreOwner(dirfd, name, st, 0o700) {
			return deniedRestored
		}
		return deniedOther
	}
	if w.old(st) && sys.Faccessat(dirfd, name, unix.X_OK, unix.AT_EACCESS|unix.AT_SYMLINK_NOFOLLOW) != nil {
		return deniedUnchanged
	}
	return deniedOther
}

// dir walks the directory open at fd (named path, depth levels below its
// grant), closing fd.
func (w *walker) dir(fd int, path string, depth int) {
	defer sys.Close(fd)
	err := w.reader(depth).Each(fd, path, nil, func(name []byte, typ uint8) bool {
		if w.left--; w.left < 0 {
			return false
		}
		w.entry(fd, path, string(name), typ, depth)
		return true
	})
	if err != nil {
		w.failed(path, err)
	}
}

// entry looks at one directory entry. The type comes from getdents
// (d_type), so directories and links cost no stat; an unknown type
// (DT_UNKNOWN, on filesystems without d_type) is stat'ed like a file.
func (w *walker) entry(dirfd int, dir, name string, typ uint8, depth int) {
	switch typ {
	case unix.DT_DIR:
		w.sub(dirfd, dir, name, depth)
	case unix.DT_LNK:
		if !w.recentOnly {
			w.link(dirfd, dir, name)
		}
	default:
		var st unix.Stat_t
		if err := sys.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if !errors.Is(err, unix.ENOENT) {
				w.failed(filepath.Join(dir, name), err)
			}
			return
		}
		w.stated(dirfd, dir, name, st, depth)
	}
}

// sub descends into the directory name, unless it is another write grant
// (walked on its own) or too deep.
func (w *walker) sub(dirfd int, dir, name string, depth int) {
	path := filepath.Join(dir, name)
	if w.roots[path] {
		return
	}
	if depth+1 > maxDepth {
		w.uncheck(path, fmt.Sprintf("deeper than %d levels below its write grant; the exit scan goes no deeper", maxDepth))
		return
	}
	if fd, ok := w.openDir(dirfd, name, path); ok {
		w.dir(fd, path, depth+1)
	}
}

func (w *walker) stated(dirfd int, dir, name string, st unix.Stat_t, depth int) {
	path := filepath.Join(dir, name)
	recent := !w.old(st)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR { // d_type was unknown
		w.sub(dirfd, dir, name, depth)
		return
	}
	if w.recentOnly && !recent {
		return // unchanged since the launch
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
			w.add(path, "setuid", st)
			w.setid(dirfd, name, path, st, recent)
		} else if w.snap.clearedIno[inode{st.Dev, st.Ino}] {
			// another name of a file cleared under an earlier one
			w.add(path, "setuid", st)
			w.snap.cleared[path] = true
		}
		if w.after && recent {
			w.filecaps(dirfd, name, path, st)
		}
	case unix.S_IFCHR, unix.S_IFBLK:
		w.add(path, "device", st)
	case unix.S_IFIFO:
		if !w.recentOnly {
			w.add(path, "fifo", st)
		}
	case unix.S_IFLNK:
		if !w.recentOnly {
			w.link(dirfd, dir, name)
		}
	}
}

func (w *walker) add(path, class string, st unix.Stat_t) {
	w.snap.found[path] = special{class: class, id: identKey(st)}
}

func identKey(st unix.Stat_t) string {
	return fmt.Sprintf("%d:%d:%o:%d", st.Dev, st.Ino, st.Mode, st.Rdev)
}

func (w *walker) link(dirfd int, dir, name string) {
	buf := make([]byte, 4096)
	n, err := sys.Readlinkat(dirfd, name, buf)
	if err != nil {
		return
	}
	target := string(buf[:n])
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	if !insideGrants(filepath.Clean(abs), w.plan) {
		w.snap.found[filepath.Join(dir, name)] = special{class: "symlink", id: target}
	}
}

func insideGrants(p string, plan *policy.Plan) bool {
	for _, g := range plan.Grants {
		if p == g.Path || strings.HasPrefix(p, g.Path+"/") {
			return true
		}
	}
	return false
}

// failed names path as not checked because of err (the walk after the
// run only: before it, nothing the member did is there to miss).
func (w *walker) failed(path string, err error) {
	if w.after {
		w.uncheck(path, "the exit scan could not open or read it ("+errText(err)+")")
	}
}

func (w *walker) uncheck(path, why string) {
	if w.after {
		// The path is the member's: quoted (policy.Quote) for the
		// "not checked after the run" line and the report alike.
		w.snap.unchecked = append(w.snap.unchecked, shortPath(policy.Quote(path))+": "+why)
	}
}

// old reports whether st's ctime is before the launch (less the slack).
func (w *walker) old(st unix.Stat_t) bool {
	since := unix.NsecToTimespec(w.since.UnixNano())
	a := st.Ctim
	return a.Sec < since.Sec || a.Sec == since.Sec && a.Nsec < since.Nsec
}

// errText is an errno's text without the call and path the error names
// (the walk names the path itself).
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
