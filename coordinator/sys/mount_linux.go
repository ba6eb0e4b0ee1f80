package sys

import (
	"os"

	"golang.org/x/sys/unix"
)

// Mount mounts source on target (mount(2)).
func Mount(source, target, fstype string, flags uintptr, data string) error {
	return pathErr("mount", target, func() error { return unix.Mount(source, target, fstype, flags, data) })
}

// Unmount unmounts target (umount2(2)).
func Unmount(target string, flags int) error {
	return pathErr("umount2", target, func() error { return unix.Unmount(target, flags) })
}

// PivotRoot makes newroot the root and puts the old one at putold (pivot_root(2)).
func PivotRoot(newroot, putold string) error {
	return pathErr("pivot_root", newroot, func() error { return unix.PivotRoot(newroot, putold) })
}

// OpenTree opens (or, with OPEN_TREE_CLONE, detaches a copy of) the mount
// at name under dirfd (open_tree(2)).
func OpenTree(dirfd int, name string, flags uint) (int, error) {
	return pathErrFD("open_tree", name, func() (int, error) { return unix.OpenTree(dirfd, name, flags) })
}

// MoveMount attaches or moves a mount (move_mount(2)); toName names the
// target in the error.
func MoveMount(fromfd int, fromName string, tofd int, toName string, flags int) error {
	return pathErr("move_mount", toName, func() error { return unix.MoveMount(fromfd, fromName, tofd, toName, flags) })
}

// MountSetattr changes the attributes of the mount at name under dirfd
// (mount_setattr(2)).
func MountSetattr(dirfd int, name string, flags uint, attr *unix.MountAttr) error {
	return pathErr("mount_setattr", name, func() error { return unix.MountSetattr(dirfd, name, flags, attr) })
}

// Fsopen starts a filesystem context of type fstype (fsopen(2)).
func Fsopen(fstype string, flags int) (int, error) {
	return pathErrFD("fsopen", fstype, func() (int, error) { return unix.Fsopen(fstype, flags) })
}

// FsconfigSetString sets key=value on a filesystem context (fsconfig(2)).
func FsconfigSetString(fd int, key, value string) error {
	return pathErr("fsconfig", key, func() error { return unix.FsconfigSetString(fd, key, value) })
}

// FsconfigCreate creates the superblock of a filesystem context (fsconfig(2)).
func FsconfigCreate(fd int) error {
	return callErr("fsconfig(FSCONFIG_CMD_CREATE)", func() error { return unix.FsconfigCreate(fd) })
}

// Fsmount turns a filesystem context into a detached mount (fsmount(2)).
func Fsmount(fd, flags, attrs int) (int, error) {
	n, err := retryFD(func() (int, error) { return unix.Fsmount(fd, flags, attrs) })
	if err != nil {
		return -1, os.NewSyscallError("fsmount", err)
	}
	return n, nil
}
