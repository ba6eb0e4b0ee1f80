package nsjail

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// The host keeps changing while a snapshot is built: on a busy host (a
// shared /tmp, a cache directory other programs clean) an entry can vanish
// or be replaced between the listing and its bind. A snapshot shows an
// entry only if the file bound is of the type listed under that name (and,
// for a name the plan makes a view or one in the root's snapshot, the very
// dev/ino listed): an entry gone by then is absent, like the host now has
// it, and one replaced by another type is absent too; one replaced by
// another file of its type shows that file, as if the host had replaced it
// before the listing (the root-only rule judges the clone's own mode).
// Its placeholder is removed, so the name does not exist inside. The same
// goes for a directory the plan makes a view inside its parent's snapshot
// (a child view): gone, or no longer the directory the coordinator
// checked, it is left out and never shown unsnapshotted; nothing then
// exists at its path, which verifyView checks. No hidden name is ever
// shown by this: an entry is either a file at the unhidden name or nothing.

// errGone: the entry listed is not there any more (vanished or replaced).
var errGone = errors.New("entry vanished or was replaced since the listing")

// errRootOnly: the clone of an entry the listing did not look at is one a
// root caller's view leaves out (rootOnly, judged by its own mode).
var errRootOnly = errors.New("entry is readable by root only")

// sameEntry: the tree (or descriptor) fd is the file e was listed as: of
// its kind, and, when the listing looked at it (e.known), of its dev/ino.
// The fd's mode is returned for the root-only rule.
func sameEntry(fd int, e entry) (uint32, bool) {
	var st unix.Stat_t
	if err := sys.Fstat(fd, e.name, &st); err != nil {
		return 0, false
	}
	same := kindOf(st.Mode) == e.kind && (!e.known || st.Dev == e.dev && st.Ino == e.ino)
	return st.Mode, same
}

// gone: the host has nothing at the name (any more), or it became a
// symlink where a directory was expected.
func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// dropPlaceholder removes e's placeholder from the snapshot's tmpfs (still
// writable and reachable only from this private mount namespace).
func dropPlaceholder(mnt int, e entry) error {
	flags := 0
	if e.kind == unix.S_IFDIR {
		flags = unix.AT_REMOVEDIR
	}
	if err := sys.Unlinkat(mnt, e.name, flags); err != nil {
		return &MountError{Op: "unlink", Target: e.name, Err: err}
	}
	return nil
}

// keepViews leaves out a listed name that is a planned view but not, by
// now, its directory: in the root's snapshot a name directly under "/"
// must be the snapshot built on it (anchor), elsewhere a child view's
// name must be the host directory the coordinator checked.
func (r *rootfs) keepViews(v policy.ViewDir, ents []entry) []entry {
	out := ents[:0]
	for _, e := range ents {
		path := filepath.Join(v.Path, e.name)
		if child := r.viewOf(path); child != nil && !e.bare {
			want := ident{Dev: child.Dev, Ino: child.Ino}
			if v.Path == "/" {
				want = r.views[path].tmpfs // zero when it was not built: never matches
			}
			if e.kind != unix.S_IFDIR || e.dev != want.Dev || e.ino != want.Ino {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}
