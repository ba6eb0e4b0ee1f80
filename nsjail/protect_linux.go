package nsjail

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Carve-outs (coordinator/protect.go) are mounted once the grants are in
// place in the new root: each path is opened there beneath the root with
// RESOLVE_NO_SYMLINKS, must be the file the coordinator checked (dev/ino),
// is cloned with open_tree from that very descriptor, gets its attributes
// on the detached clone (read-only for a carve-out; nosuid and nodev only
// for a pin) and is moved back onto itself. The plan lists parents first,
// so a pin is in place before anything beneath it. Afterwards each path is
// opened again and must be the same file, on a mount with the expected
// read-only state.

func (r *rootfs) protect() error {
	for _, c := range r.cfg.Plan.Protected {
		if err := r.carve(c); err != nil {
			return err
		}
	}
	return r.verifyCarved()
}

func (r *rootfs) carve(c policy.Carveout) error {
	rel := strings.TrimPrefix(c.Path, "/")
	fd, err := openNoFollow(r.root, rel, c.Kind == "dir", true)
	if err != nil {
		return fmt.Errorf("protected path %s: %w (it changed since it was checked; retry)", policy.Quote(c.Path), err)
	}
	defer sys.Close(fd)
	if dev, ino, err := fdIdent(fd); err != nil || dev != c.Dev || ino != c.Ino {
		return fmt.Errorf("protected path %s changed between the checks and the mount (dev/ino %d/%d, expected %d/%d): refusing to start", policy.Quote(c.Path), dev, ino, c.Dev, c.Ino)
	}
	tree, err := cloneTree(fd, c.Path)
	if err != nil {
		return err
	}
	defer sys.Close(tree)
	attrs, kind := carveAttrs(c)
	if err := setAttr(tree, "", true, attrs, c.Path); err != nil {
		return err
	}
	if err := moveInto(tree, fd, c.Path); err != nil {
		return err
	}
	r.records = append(r.records, policy.MountRecord{Target: c.Path, Kind: kind, Source: c.Path, Dev: c.Dev, Ino: c.Ino, Flags: attrNames(attrs)})
	return nil
}

// carveAttrs: the attributes and the report's kind for a carve-out.
func carveAttrs(c policy.Carveout) (uint64, string) {
	if c.Mode == policy.CarvePin {
		return rwAttrs, "pin"
	}
	return roAttrs, "protect"
}

// verifyCarved re-reads every carve-out in the new root: the same file,
// read-only exactly when it should be.
func (r *rootfs) verifyCarved() error {
	for _, c := range r.cfg.Plan.Protected {
		fd, err := openNoFollow(r.root, strings.TrimPrefix(c.Path, "/"), c.Kind == "dir", true)
		if err != nil {
			return err
		}
		dev, ino, err := fdIdent(fd)
		var st unix.Statfs_t
		if err == nil {
			err = sys.Fstatfs(fd, c.Path, &st)
		}
		sys.Close(fd)
		ro := st.Flags&unix.ST_RDONLY != 0
		if err != nil || dev != c.Dev || ino != c.Ino || ro != (c.Mode == policy.CarveReadOnly) {
			return fmt.Errorf("protected path %s is not in force in the new root (dev/ino %d/%d, read-only %v): %w", policy.Quote(c.Path), dev, ino, ro, err)
		}
	}
	return nil
}
