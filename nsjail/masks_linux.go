package nsjail

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Masks hide host paths (credentials, acbox's state and config, protected
// paths, --exclude) from the member for the whole run. Almost all are held
// by views (synth_linux.go): the masked name does not exist inside at all.
// Two kinds need nothing mounted: a name the caller cannot read and cannot
// make readable (policy.HeldPermissions), and one the sandbox does not
// show. Only with --best-effort, a mask in a write grant is a mount on the
// entry itself (policy.HeldMount), mounted here in the helper's
// private copy of the host's mount tree before anything is cloned: a
// directory gets a read-only empty tmpfs with mode 0000, anything else
// /dev/null bound read-only. Such a mount lasts only until the host
// replaces the entry, so the report lists it as a shortfall. Runtime
// mounts whose source lies inside a mask are cloned before all of this,
// since passing such a file in is the point of the mount.
//
// Each entry mount's path is opened with RESOLVE_NO_SYMLINKS and must
// still be the file the coordinator checked (dev/ino); a swap in between
// aborts the launch. Landlock cannot deny a path beneath an allowed
// parent, so the views and these mounts are the whole of the masking.

// maskTmpfsData: empty, read-only (flags), unreadable even to its owner.
const maskTmpfsData = "size=4k,nr_inodes=1,mode=000"

func (r *rootfs) applyMasks() error {
	for _, m := range r.cfg.Plan.Masks {
		if m.Held != policy.HeldMount {
			continue
		}
		r.shortfalls = append(r.shortfalls, m.Path)
		if m.Kind != "dir" && m.Kind != "file" {
			continue // absent, a symlink or a pattern: nothing to mount on
		}
		if err := r.mask(m); err != nil {
			return err
		}
	}
	return nil
}

// maskControl is the report's account of masks held only by a mount on
// the entry (--best-effort): requested for the whole run, not enforced.
func (r *rootfs) maskControl() policy.Control {
	c := policy.Control{Name: "masks_whole_run", Requested: true, Enforced: len(r.shortfalls) == 0}
	if !c.Enforced {
		c.Why = "masked only by a mount on the entry, which falls off if the host replaces it: " + strings.Join(r.shortfalls, ", ")
	}
	return c
}

func (r *rootfs) mask(m policy.Mask) error {
	fd, err := openNoFollow(unix.AT_FDCWD, m.Path, m.Kind == "dir", false)
	if errors.Is(err, unix.ENOENT) {
		return nil // gone: nothing to mount on, as for a name absent at launch (verifyMasks checks it stays so)
	}
	if err != nil {
		return fmt.Errorf("mask %s: %w (it changed since it was checked; retry)", policy.Quote(m.Path), err)
	}
	defer sys.Close(fd)
	if dev, ino, err := fdIdent(fd); err != nil || dev != m.Dev || ino != m.Ino {
		return fmt.Errorf("mask %s changed between the checks and the mount (dev/ino %d/%d, expected %d/%d): refusing to start", policy.Quote(m.Path), dev, ino, m.Dev, m.Ino)
	}
	rec := policy.MountRecord{Target: m.Path, Kind: "mask", Dev: m.Dev, Ino: m.Ino}
	if m.Kind == "dir" {
		rec.Source, rec.Flags = "tmpfs", "RDONLY|NOSUID|NODEV|NOEXEC,"+maskTmpfsData
		err = mountFS("tmpfs", fdPath(fd), unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, maskTmpfsData)
	} else {
		rec.Source, rec.Flags = "/dev/null", "RDONLY|NOSUID|NOEXEC"
		err = maskFile(fd, m.Path)
	}
	if err != nil {
		return err
	}
	r.records = append(r.records, rec)
	return nil
}

// maskFile binds a read-only clone of /dev/null over the file open at fd.
func maskFile(fd int, name string) error {
	null, err := openNoFollow(unix.AT_FDCWD, "/dev/null", false, false)
	if err != nil {
		return err
	}
	tree, err := cloneTree(null, "/dev/null")
	sys.Close(null)
	if err != nil {
		return err
	}
	defer sys.Close(tree)
	if err := setAttr(tree, "", true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, name); err != nil {
		return err
	}
	return moveInto(tree, fd, name)
}

// verifyMasks checks the finished root. Every view reachable by its path
// must show its snapshot (the tmpfs built for it) and none of its hidden
// names; every entry mount that is still reachable by its name must no
// longer be the file that was masked.
func (r *rootfs) verifyMasks() error {
	for _, v := range r.cfg.Plan.Views {
		if err := r.verifyView(v); err != nil {
			return err
		}
	}
	for _, m := range r.cfg.Plan.Masks {
		if m.Held != policy.HeldMount || (m.Kind != "dir" && m.Kind != "file") {
			continue
		}
		fd, err := openNoFollow(r.root, strings.TrimPrefix(m.Path, "/"), false, true)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			continue
		}
		if err != nil {
			return err
		}
		dev, ino, err := fdIdent(fd)
		sys.Close(fd)
		if err != nil || (dev == m.Dev && ino == m.Ino) {
			return fmt.Errorf("mask %s is not in force in the new root (dev/ino %d/%d is the masked file)", policy.Quote(m.Path), dev, ino)
		}
	}
	return nil
}

// verifyView: the view's path shows its own tmpfs, without the hidden
// names. A view under the sandbox's private /tmp, /dev or /proc is not
// reachable (the sandbox shows its own mounts there). A view that was not
// built (its directory had vanished or been replaced) must show nothing at
// all: no such name in the new root.
func (r *rootfs) verifyView(v policy.ViewDir) error {
	rel := strings.TrimPrefix(v.Path, "/")
	if rel == "" {
		rel = "."
	}
	built, ok := r.views[v.Path]
	fd, err := openNoFollow(r.root, rel, true, true)
	if err != nil && underPrivate(v.Path) {
		return nil
	}
	if !ok && errors.Is(err, unix.ENOENT) {
		return nil // its directory vanished or was replaced on the host: left out (synth_vanish_linux.go)
	}
	if err != nil {
		return fmt.Errorf("view %s is not reachable in the new root: %w", policy.Quote(v.Path), err)
	}
	defer sys.Close(fd)
	dev, ino, err := fdIdent(fd)
	want := built.tmpfs
	if err != nil || dev != want.Dev || ino != want.Ino {
		if underPrivate(v.Path) {
			return nil
		}
		return fmt.Errorf("view %s is not in force in the new root (dev/ino %d/%d, its snapshot is %d/%d)", policy.Quote(v.Path), dev, ino, want.Dev, want.Ino)
	}
	names, err := listNames(fd, v.Path)
	if err != nil {
		return err
	}
	for _, name := range names {
		if hidden(v, name) {
			return fmt.Errorf("view %s shows the masked name %s", policy.Quote(v.Path), policy.Quote(name))
		}
	}
	return nil
}

func underPrivate(p string) bool {
	for _, d := range privateInHostView {
		if p == "/"+d || strings.HasPrefix(p, "/"+d+"/") {
			return true
		}
	}
	return false
}

// maskedSource reports whether a runtime mount's source lies inside a mask.
func maskedSource(p *policy.Plan, src string) bool {
	for _, m := range p.Masks {
		if src == m.Path || strings.HasPrefix(src, strings.TrimSuffix(m.Path, "/")+"/") {
			return true
		}
	}
	return false
}
