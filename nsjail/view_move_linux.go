package nsjail

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// A view built on its real directory entry (an anchor: a system directory
// in the grants view, a directory just below "/" in the host view) is
// moved into the new root, not cloned: once every source has been cloned
// (sources that lie under it carry it), nothing in the helper's namespace
// needs it where it was. A recursive clone copied each of its entry binds
// again (about 140 for /etc as root), and the originals were torn down
// with the old root after pivot_root; a move takes the tree as it is.

// anchored: path's view was built on its real directory entry (see
// applyViews), not inside its parent's snapshot.
func (r *rootfs) anchored(path string) bool {
	_, built := r.views[path]
	parent := filepath.Dir(path)
	return built && path != "/" && (parent == "/" || r.viewOf(parent) == nil)
}

// takeView opens the built snapshot at name under dirfd as a mount (not a
// copy), checking that it is the tmpfs built for path.
func (r *rootfs) takeView(dirfd int, name, path string) (int, error) {
	fd, err := sys.OpenTree(dirfd, name, unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return -1, &MountError{Op: "open_tree", Source: path, Err: err}
	}
	dev, ino, err := fdIdent(fd)
	want := r.views[path].tmpfs
	if err != nil || dev != want.Dev || ino != want.Ino {
		sys.Close(fd)
		return -1, fmt.Errorf("view %s is not in force where it was built (dev/ino %d/%d, its snapshot is %d/%d): refusing to start", policy.Quote(path), dev, ino, want.Dev, want.Ino)
	}
	return fd, nil
}

// addView makes the system directory path, whose view was built on its
// real entry, a source that attach moves (see attach).
func (r *rootfs) addView(path string) error {
	fd, err := r.takeView(unix.AT_FDCWD, path, path)
	if err != nil {
		return err
	}
	vi := r.views[path]
	rec := policy.MountRecord{Target: path, Kind: "system", Source: path, Dev: vi.host.Dev, Ino: vi.host.Ino, Flags: attrNames(roAttrs)}
	r.sources = append(r.sources, source{target: path, kind: "system", tree: fd, isDir: true, move: true, rec: rec})
	return nil
}
