package nsjail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Views (policy.ViewDir) hold masks for the whole run: a masked name
// does not exist inside, because its directory is replaced by a snapshot, a
// read-only tmpfs holding a bind of every other entry the host directory
// had at launch (symlinks recreated as symlinks). The snapshot sits on the
// anchor's directory entry in the helper's private mount namespace; every
// directory below the anchor on the way to a masked name is a snapshot
// inside its parent's snapshot, on a dentry of that tmpfs, which the host
// cannot rename, unlink or replace. Later clones (grants, runtime mounts,
// the host root) are recursive and carry the snapshots; the anchors
// themselves are moved into the new root once everything is cloned
// (view_move_linux.go).
//
// Entries are cloned from a descriptor of the host directory taken before
// it is covered, by name, never following a symlink. The anchor is opened
// by path with RESOLVE_NO_SYMLINKS and every snapshot's directory must be
// the one the coordinator checked (dev/ino): a swap refuses the launch.
// Entry clones keep their source mount's attributes; the recursive clone
// that shows them (read-only system directories, read grants, host root)
// sets read-only on the whole tree.

// viewAttrs: the snapshot tmpfs itself.
const viewAttrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC

// viewIdent is a built snapshot: the host directory it stands for and the
// tmpfs root that now shows at its path.
type viewIdent struct{ host, tmpfs ident }

// applyViews builds every anchor's snapshot, parents first, except "/"
// (the host view's root, built at the staging directory by stageRootView).
// A view directly under "/" is an anchor too: it is built on its real
// directory entry here, so that grants and mounts cloned from its path
// carry it, and the root's snapshot binds it from there like any entry.
func (r *rootfs) applyViews() error {
	for _, v := range r.cfg.Plan.Views {
		parent := filepath.Dir(v.Path)
		if v.Path == "/" || (parent != "/" && r.viewOf(parent) != nil) {
			continue // built inside its parent's snapshot
		}
		under, err := openNoFollow(unix.AT_FDCWD, v.Path, true, false)
		if gone(err) && parent == "/" && r.viewOf("/") != nil {
			continue // vanished: the root's snapshot leaves the name out (keepViews)
		}
		if err != nil {
			return fmt.Errorf("view %s: %w (it changed since it was checked; retry)", policy.Quote(v.Path), err)
		}
		err = r.snapshot(v, under, under)
		sys.Close(under)
		if err != nil {
			return err
		}
	}
	return nil
}

// viewOf returns the planned view of path, or nil.
func (r *rootfs) viewOf(path string) *policy.ViewDir {
	for i, v := range r.cfg.Plan.Views {
		if v.Path == path {
			return &r.cfg.Plan.Views[i]
		}
	}
	return nil
}

// viewIn: the plan makes dir/name a view (viewOf without joining the
// path: asked for every entry listed).
func (r *rootfs) viewIn(dir, name string) bool {
	for _, v := range r.cfg.Plan.Views {
		rest, ok := strings.CutPrefix(v.Path, dir)
		if ok && len(rest) == len(name)+1 && rest[0] == '/' && rest[1:] == name {
			return true
		}
	}
	return false
}

// snapshot builds v's tmpfs from the host directory open at under and
// attaches it onto at (under itself for an anchor, a placeholder in the
// parent's snapshot otherwise).
func (r *rootfs) snapshot(v policy.ViewDir, under, at int) error {
	if dev, ino, err := fdIdent(under); err != nil || dev != v.Dev || ino != v.Ino {
		return fmt.Errorf("view %s changed between the checks and the mount (dev/ino %d/%d, expected %d/%d): refusing to start", policy.Quote(v.Path), dev, ino, v.Dev, v.Ino)
	}
	ents, err := listEntries(under, v, func(name string) bool {
		return v.Path == "/" || r.viewIn(v.Path, name)
	}, r.listDir)
	if err != nil {
		if at != under && v.Path != "/" && errors.Is(err, unix.ENOENT) {
			// A child view's directory removed on the host since it was
			// opened (getdents of a deleted directory): gone, as in
			// childView; nothing is mounted yet.
			return errGone
		}
		return err
	}
	ents = r.keepViews(v, ents)
	if v.Path == "/" && wantsOwnDir(r.cfg.Plan) {
		ents = withOwnDir(ents)
	}
	mnt, err := newViewTmpfs(under, len(ents))
	if err != nil {
		return &MountError{Op: "fsmount", Source: "tmpfs", Target: v.Path, Err: err}
	}
	defer sys.Close(mnt)
	if err := placeholders(mnt, ents); err != nil {
		return fmt.Errorf("view %s: %w", policy.Quote(v.Path), err)
	}
	if err := moveInto(mnt, at, v.Path); err != nil {
		return err
	}
	n, err := r.fill(v, under, mnt, ents)
	if err != nil {
		return err
	}
	if err := setAttr(mnt, "", false, viewAttrs, v.Path); err != nil {
		return err
	}
	return r.recordView(v, mnt, n)
}

// fill binds every entry onto its placeholder, or builds a child view
// there, and returns how many it bound. Placeholders are named relative to
// the snapshot's own tmpfs, which only this process can reach (a private
// mount namespace). An entry gone or replaced since the listing is left
// out (synth_vanish_linux.go).
func (r *rootfs) fill(v policy.ViewDir, under, mnt int, ents []entry) (int, error) {
	n := len(ents)
	for _, e := range ents {
		if e.kind == unix.S_IFLNK || e.bare {
			continue
		}
		err := r.fillOne(v, under, mnt, e)
		if errors.Is(err, errGone) || errors.Is(err, errRootOnly) {
			n--
			err = dropPlaceholder(mnt, e)
		}
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (r *rootfs) fillOne(v policy.ViewDir, under, mnt int, e entry) error {
	path := filepath.Join(v.Path, e.name)
	if child := r.viewOf(path); child != nil && v.Path != "/" {
		return r.childView(*child, under, mnt, e.name)
	}
	tree, err := r.entryTree(v, under, e, path)
	if err != nil {
		return err
	}
	defer sys.Close(tree)
	err = sys.MoveMount(tree, "", mnt, e.name, unix.MOVE_MOUNT_F_EMPTY_PATH)
	if errors.Is(err, unix.ENOENT) {
		return errGone // unlinked on the host since it was cloned (the placeholder is ours alone)
	}
	if err != nil {
		return &MountError{Op: "move_mount", Target: path, Err: err}
	}
	return nil
}

// entryTree is what shows at an entry: a clone of it, or, for an anchor
// view under the root's snapshot, the view itself, moved (view_move_linux.go;
// keepViews made sure the listed entry is that snapshot). Either must
// still be the file listed: errGone otherwise; errRootOnly when the view
// leaves it out by its mode.
func (r *rootfs) entryTree(v policy.ViewDir, under int, e entry, path string) (int, error) {
	flags := uint(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC | unix.AT_RECURSIVE | unix.AT_SYMLINK_NOFOLLOW)
	if r.anchored(path) {
		flags = uint(unix.OPEN_TREE_CLOEXEC | unix.AT_SYMLINK_NOFOLLOW)
	}
	tree, err := sys.OpenTree(under, e.name, flags)
	if errors.Is(err, unix.ENOENT) {
		return -1, errGone
	}
	if err != nil {
		return -1, &MountError{Op: "open_tree", Source: path, Flags: "OPEN_TREE_CLONE|AT_RECURSIVE", Err: err}
	}
	mode, same := sameEntry(tree, e)
	if !same {
		sys.Close(tree)
		return -1, errGone
	}
	if !e.known && rootOnly(v, entry{name: e.name, mode: mode}) {
		sys.Close(tree)
		return -1, errRootOnly
	}
	return tree, nil
}

// childView builds a child's snapshot on its placeholder directory: of the
// directory the coordinator checked, or, when that is no longer at the
// name, of nothing (errGone).
func (r *rootfs) childView(v policy.ViewDir, under, mnt int, name string) error {
	src, err := openNoFollow(under, name, true, true)
	if gone(err) {
		return errGone
	}
	if err != nil {
		return fmt.Errorf("view %s: %w (it changed since it was checked; retry)", policy.Quote(v.Path), err)
	}
	defer sys.Close(src)
	if _, same := sameEntry(src, entry{name: name, kind: unix.S_IFDIR, known: true, dev: v.Dev, ino: v.Ino}); !same {
		return errGone
	}
	dst, err := openNoFollow(mnt, name, true, true)
	if err != nil {
		return err
	}
	defer sys.Close(dst)
	return r.snapshot(v, src, dst)
}

// newViewTmpfs makes a detached tmpfs with the host directory's mode (and
// owner, where it is mapped in this user namespace).
func newViewTmpfs(under, n int) (int, error) {
	var st unix.Stat_t
	if err := sys.Fstat(under, "", &st); err != nil {
		return -1, err
	}
	fs, err := sys.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer sys.Close(fs)
	opts := [][2]string{{"size", "1m"}, {"nr_inodes", fmt.Sprint(n + 8)}, {"mode", fmt.Sprintf("%o", st.Mode&0o7777)}}
	if int(st.Uid) == os.Getuid() && int(st.Gid) == os.Getgid() {
		opts = append(opts, [2]string{"uid", fmt.Sprint(st.Uid)}, [2]string{"gid", fmt.Sprint(st.Gid)})
	}
	for _, o := range opts {
		if err := sys.FsconfigSetString(fs, o[0], o[1]); err != nil {
			return -1, fmt.Errorf("tmpfs %s=%s: %w", o[0], o[1], err)
		}
	}
	if err := sys.FsconfigCreate(fs); err != nil {
		return -1, err
	}
	return sys.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
}

// recordView reports the snapshot truthfully: a tmpfs standing for the
// host directory (its dev/ino), how many entries it binds, what it hides.
func (r *rootfs) recordView(v policy.ViewDir, mnt, n int) error {
	dev, ino, err := fdIdent(mnt)
	if err != nil {
		return err
	}
	if r.views == nil {
		r.views = map[string]viewIdent{}
	}
	r.views[v.Path] = viewIdent{host: ident{Path: v.Path, Dev: v.Dev, Ino: v.Ino}, tmpfs: ident{Path: v.Path, Dev: dev, Ino: ino}}
	hide := strings.Join(append(slices.Clone(v.Hide), v.HideGlob...), ":")
	r.records = append(r.records, policy.MountRecord{Target: v.Path, Kind: "view", Source: "tmpfs", Dev: v.Dev, Ino: v.Ino,
		Flags: fmt.Sprintf("%s,entries=%d,hide=%s", attrNames(viewAttrs), n, hide)})
	return nil
}
