package nsjail

import (
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// The host view (coordinator.ViewHost): the new root is a recursive clone of
// the host's root, taken after the masks are in place so it carries them,
// made read-only, nosuid and nodev on the detached tree (no writable window)
// and attached at the staging directory instead of the usual tmpfs. The
// steps after that are the grants view's: a fresh /proc and /dev, the
// private /tmp, then the grants, runtime mounts and tmpfs mounts over the
// read-only host, whose mount points already exist (the coordinator checked
// that every target does).

func isHostView(p *coordinator.Plan) bool { return p.View == coordinator.ViewHost }

// cloneHostRoot clones "/" of the helper's mount namespace (a private copy
// of the caller's, masks included) into r.hostRoot.
func (r *rootfs) cloneHostRoot() error {
	fd, err := openNoFollow(unix.AT_FDCWD, "/", true, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tree, err := cloneTree(fd, "/")
	if err != nil {
		return err
	}
	if err := setAttr(tree, "", true, roAttrs, "/"); err != nil {
		unix.Close(tree)
		return err
	}
	r.hostRoot = tree
	return nil
}

// stageHostRoot attaches the clone at the staging directory and opens it as
// the new root.
func (r *rootfs) stageHostRoot() error {
	dst, err := openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	if err != nil {
		return err
	}
	err = moveInto(r.hostRoot, dst, "/ (host view)")
	unix.Close(dst)
	unix.Close(r.hostRoot)
	r.hostRoot = -1
	if err != nil {
		return err
	}
	r.records = append(r.records, coordinator.MountRecord{Target: "/", Kind: "host", Source: "/", Flags: attrNames(roAttrs) + "|RECURSIVE"})
	r.root, err = openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	return err
}
