package nsjail

import (
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// The host view (policy.ViewHost): the new root is a snapshot of the
// host's root (synth_linux.go: /run and /sys left out, /proc, /dev and /tmp
// empty for the sandbox's own), taken after the masks and the other views
// are in place so its recursive clones carry them, made read-only, nosuid
// and nodev as a whole before anything else is placed, and attached at the
// staging directory instead of the usual tmpfs. (Without a view of "/",
// when nothing at the root is masked, it is a recursive clone of "/",
// likewise made read-only on the detached tree.) The
// steps after that are the grants view's: a fresh /proc and /dev, the
// private /tmp, then the grants, runtime mounts and tmpfs mounts over the
// read-only host, whose mount points already exist (the coordinator checked
// that every target does).

func isHostView(p *policy.Plan) bool { return p.View == policy.ViewHost }

// cloneHostRoot clones "/" of the helper's mount namespace (a private copy
// of the caller's, masks included) into r.hostRoot.
func (r *rootfs) cloneHostRoot() error {
	fd, err := openNoFollow(unix.AT_FDCWD, "/", true, false)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	tree, err := cloneTree(fd, "/")
	if err != nil {
		return err
	}
	if err := setAttr(tree, "", true, roAttrs, "/"); err != nil {
		sys.Close(tree)
		return err
	}
	r.hostRoot = tree
	return nil
}

// stageRootView builds the snapshot of "/" at the staging directory, opens
// it as the new root and makes the whole tree read-only, nosuid and nodev.
func (r *rootfs) stageRootView(v *policy.ViewDir) error {
	under, err := openNoFollow(unix.AT_FDCWD, "/", true, false)
	if err != nil {
		return err
	}
	defer sys.Close(under)
	dst, err := openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	if err != nil {
		return err
	}
	err = r.snapshot(*v, under, dst)
	sys.Close(dst)
	if err != nil {
		return err
	}
	if r.root, err = openNoFollow(unix.AT_FDCWD, stagingDir, true, false); err != nil {
		return err
	}
	if err := setAttr(r.root, "", true, roAttrs, "/ (host view)"); err != nil {
		return err
	}
	if wantsOwnDir(r.cfg.Plan) {
		return r.mountOwnDir()
	}
	return nil
}

// stageHostRoot attaches the clone at the staging directory and opens it as
// the new root.
func (r *rootfs) stageHostRoot() error {
	if v := r.viewOf("/"); v != nil {
		return r.stageRootView(v)
	}
	dst, err := openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	if err != nil {
		return err
	}
	err = moveInto(r.hostRoot, dst, "/ (host view)")
	sys.Close(dst)
	sys.Close(r.hostRoot)
	r.hostRoot = -1
	if err != nil {
		return err
	}
	r.records = append(r.records, policy.MountRecord{Target: "/", Kind: "host", Source: "/", Flags: attrNames(roAttrs) + "|RECURSIVE"})
	r.root, err = openNoFollow(unix.AT_FDCWD, stagingDir, true, false)
	return err
}

// ownDir is the sandbox's own directory in the host view (--delegate's
// broker socket and acbox binary, policy.DelegateDir): the root's
// snapshot shows it as an empty directory, whatever the host has there,
// and a small tmpfs on it takes the mount points. It is made read-only
// once they are placed (sealOwnDir), as the grants view's root is.
const ownDir = policy.DelegateDir

// wantsOwnDir: some runtime mount targets the own directory.
func wantsOwnDir(p *policy.Plan) bool {
	if !isHostView(p) {
		return false
	}
	for _, m := range p.Mounts {
		if m.Target == ownDir || strings.HasPrefix(m.Target, ownDir+"/") {
			return true
		}
	}
	return false
}

// withOwnDir shows the own directory in the root's snapshot as an empty
// directory (replacing a host entry of that name).
func withOwnDir(ents []entry) []entry {
	name := strings.TrimPrefix(ownDir, "/")
	out := slices.DeleteFunc(ents, func(e entry) bool { return e.name == name })
	return append(out, entry{name: name, kind: unix.S_IFDIR, bare: true})
}

// mountOwnDir puts a small writable tmpfs on the own directory of the
// staged root.
func (r *rootfs) mountOwnDir() error {
	fd, err := openNoFollow(r.root, strings.TrimPrefix(ownDir, "/"), true, true)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	if err := mountFS("tmpfs", fdPath(fd), unix.MS_NOSUID|unix.MS_NODEV, ownDirData); err != nil {
		return err
	}
	r.records = append(r.records, policy.MountRecord{Target: ownDir, Kind: "tmpfs", Flags: "NOSUID|NODEV," + ownDirData})
	return nil
}

const ownDirData = "size=64k,nr_inodes=64,mode=0755"

// sealOwnDir makes the own directory read-only once its mount points exist.
func (r *rootfs) sealOwnDir() error {
	if !wantsOwnDir(r.cfg.Plan) {
		return nil
	}
	fd, err := openNoFollow(r.root, strings.TrimPrefix(ownDir, "/"), true, true)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	return setAttr(fd, "", false, unix.MOUNT_ATTR_RDONLY, ownDir)
}
