package nsjail

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// devNodes are bound from the host into the sandbox's /dev. Device nodes
// cannot be created in a user namespace; binding the host's is what
// bubblewrap does too.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devAttrs: each node's bind is read-only. The bind shows the host's own
// devtmpfs inode, which a root caller's member owns: on a read-write bind
// it could chmod, chown or touch the host's /dev/null (Landlock covers none
// of these). A read-only bind refuses them with EROFS and still opens,
// reads and writes the device: the kernel exempts special files from the
// mount's write check (do_dentry_open; see readonly_linux.go).
const devAttrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NOEXEC

func (r *rootfs) cloneDevices() error {
	for _, n := range devNodes {
		fd, err := openNoFollow(unix.AT_FDCWD, "/dev/"+n, false, false)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return err
		}
		tree, err := cloneTree(fd, "/dev/"+n)
		sys.Close(fd)
		if err != nil {
			return err
		}
		if err := setAttr(tree, "", true, devAttrs, "/dev/"+n); err != nil {
			return err
		}
		rec := policy.MountRecord{Target: "/dev/" + n, Kind: "dev", Source: "/dev/" + n, Flags: attrNames(devAttrs)}
		r.devs = append(r.devs, source{target: "/dev/" + n, kind: "dev", tree: tree, rec: rec})
	}
	return nil
}

// dev builds a minimal /dev: the bound nodes, a private devpts, shm, and
// the usual symlinks; then makes the /dev tmpfs itself read-only.
func (r *rootfs) dev() error {
	dfd, err := mkdirBeneath(r.root, "dev", 0o755)
	if err != nil {
		return err
	}
	defer sys.Close(dfd)
	if err := mountFS("tmpfs", fdPath(dfd), unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return err
	}
	for _, d := range r.devs {
		if err := r.attach(d); err != nil {
			return err
		}
	}
	if err := r.devSubmounts(); err != nil {
		return err
	}
	for _, l := range [][2]string{{"pts/ptmx", "dev/ptmx"}, {"/proc/self/fd", "dev/fd"}, {"/proc/self/fd/0", "dev/stdin"}, {"/proc/self/fd/1", "dev/stdout"}, {"/proc/self/fd/2", "dev/stderr"}} {
		if err := sys.Symlinkat(l[0], r.root, l[1]); err != nil {
			return &MountError{Op: "symlink", Source: l[0], Target: "/" + l[1], Err: err}
		}
	}
	r.records = append(r.records, policy.MountRecord{Target: "/dev", Kind: "dev", Flags: "RDONLY|NOSUID|NOEXEC"})
	return setAttr(r.root, "dev", false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, "/dev")
}

func (r *rootfs) devSubmounts() error {
	pts, err := mkdirBeneath(r.root, "dev/pts", 0o755)
	if err != nil {
		return err
	}
	defer sys.Close(pts)
	// gid=5 (tty) is not mapped in the user namespace: EINVAL. ptmxmode
	// lets the unprivileged member open its own instance's ptmx.
	if err := mountFS("devpts", fdPath(pts), unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return err
	}
	shm, err := mkdirBeneath(r.root, "dev/shm", 0o755)
	if err != nil {
		return err
	}
	defer sys.Close(shm)
	if err := mountFS("tmpfs", fdPath(shm), unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64m,mode=1777"); err != nil {
		return err
	}
	r.records = append(r.records,
		policy.MountRecord{Target: "/dev/pts", Kind: "devpts", Flags: "newinstance"},
		policy.MountRecord{Target: "/dev/shm", Kind: "tmpfs", Flags: "size=64m"})
	return nil
}
