package nsjail

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// Masks hide host paths (credentials, acbox's state, --exclude) from the
// member. They are mounted in the helper's private copy of the host's mount
// tree, before anything else is cloned: every later clone (system
// directories, grants, the host root in the host view) is recursive and so
// carries them, wherever the path ends up. Runtime mounts whose source lies
// inside a mask are cloned before, since passing such a file in is the point
// of the mount.
//
// Each mask path is opened with RESOLVE_NO_SYMLINKS and must still be the
// file the coordinator checked (dev/ino); a swap in between aborts the
// launch. A directory gets a read-only empty tmpfs with mode 0000, anything
// else /dev/null bound read-only. Landlock cannot deny a path beneath an
// allowed parent, so these mounts are the whole of the masking.

// maskTmpfsData: empty, read-only (flags), unreadable even to its owner.
const maskTmpfsData = "size=4k,nr_inodes=1,mode=000"

func (r *rootfs) applyMasks() error {
	for _, m := range r.cfg.Plan.Masks {
		if err := r.mask(m); err != nil {
			return err
		}
	}
	return nil
}

func (r *rootfs) mask(m coordinator.Mask) error {
	fd, err := openNoFollow(unix.AT_FDCWD, m.Path, m.Kind == "dir", false)
	if err != nil {
		return fmt.Errorf("mask %s: %w (it changed since it was checked; retry)", m.Path, err)
	}
	defer unix.Close(fd)
	if dev, ino, err := fdIdent(fd); err != nil || dev != m.Dev || ino != m.Ino {
		return fmt.Errorf("mask %s changed between the checks and the mount (dev/ino %d/%d, expected %d/%d): refusing to start", m.Path, dev, ino, m.Dev, m.Ino)
	}
	rec := coordinator.MountRecord{Target: m.Path, Kind: "mask", Dev: m.Dev, Ino: m.Ino}
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
	unix.Close(null)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if err := setAttr(tree, "", true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, name); err != nil {
		return err
	}
	return moveInto(tree, fd, name)
}

// verifyMasks checks the finished root: every masked path that is still
// reachable by its name must no longer be the file that was masked. A path
// that is gone (under a private tmpfs) is hidden by that mount instead.
func (r *rootfs) verifyMasks() error {
	for _, m := range r.cfg.Plan.Masks {
		fd, err := openNoFollow(r.root, strings.TrimPrefix(m.Path, "/"), false, true)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			continue
		}
		if err != nil {
			return err
		}
		dev, ino, err := fdIdent(fd)
		unix.Close(fd)
		if err != nil || (dev == m.Dev && ino == m.Ino) {
			return fmt.Errorf("mask %s is not in force in the new root (dev/ino %d/%d is the masked file)", m.Path, dev, ino)
		}
	}
	return nil
}

// maskedSource reports whether a runtime mount's source lies inside a mask.
func maskedSource(p *coordinator.Plan, src string) bool {
	for _, m := range p.Masks {
		if src == m.Path || strings.HasPrefix(src, strings.TrimSuffix(m.Path, "/")+"/") {
			return true
		}
	}
	return false
}
