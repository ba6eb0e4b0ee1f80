package nsjail

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// MountError names the operation, its subject and the errno, in the shape
// runc uses: "open_tree /home/u/proj: operation not permitted".
type MountError struct {
	Op     string
	Source string
	Target string
	Flags  string
	Err    error
}

func (e *MountError) Error() string {
	err := e.Err
	// The op is named here already: print the errno of a coordinator/sys
	// error, not its op and path again.
	switch x := err.(type) {
	case *os.PathError:
		err = x.Err
	case *os.SyscallError:
		err = x.Err
	}
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Source != "" {
		fmt.Fprintf(&b, " src=%s", policy.Quote(e.Source))
	}
	if e.Target != "" {
		fmt.Fprintf(&b, " dst=%s", policy.Quote(e.Target))
	}
	if e.Flags != "" {
		fmt.Fprintf(&b, " flags=%s", e.Flags)
	}
	return b.String() + ": " + err.Error()
}

func (e *MountError) Unwrap() error { return e.Err }

// openNoFollow opens path as O_PATH without following any symlink in any
// component; dir requires a directory.
func openNoFollow(dirfd int, path string, dir bool, beneath bool) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if dir {
		how.Flags |= unix.O_DIRECTORY
	}
	if beneath {
		how.Resolve |= unix.RESOLVE_BENEATH
	}
	fd, err := sys.Openat2(dirfd, path, &how)
	if err != nil {
		return -1, &MountError{Op: "openat2", Source: path, Flags: "RESOLVE_NO_SYMLINKS", Err: err}
	}
	return fd, nil
}

// cloneTree detaches a recursive copy of the mount at fd.
func cloneTree(fd int, name string) (int, error) {
	t, err := sys.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return -1, &MountError{Op: "open_tree", Source: name, Flags: "OPEN_TREE_CLONE|AT_RECURSIVE", Err: err}
	}
	return t, nil
}

// setAttr sets mount attributes on a whole (detached or attached) tree.
func setAttr(fd int, path string, recursive bool, set uint64, name string) error {
	flags := uint(0)
	if path == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	attr := unix.MountAttr{Attr_set: set}
	if err := sys.MountSetattr(fd, path, flags, &attr); err != nil {
		return &MountError{Op: "mount_setattr", Target: name, Flags: attrNames(set), Err: err}
	}
	return nil
}

// moveInto attaches the detached tree onto the directory or file open at dst.
func moveInto(tree, dst int, name string) error {
	err := sys.MoveMount(tree, "", dst, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
	if err != nil {
		return &MountError{Op: "move_mount", Target: name, Err: err}
	}
	return nil
}

func mountFS(fstype, target string, flags uintptr, data string) error {
	if err := sys.Mount(fstype, target, fstype, flags, data); err != nil {
		return &MountError{Op: "mount", Source: fstype, Target: target, Flags: data, Err: err}
	}
	return nil
}

func attrNames(a uint64) string {
	var n []string
	for _, f := range []struct {
		bit  uint64
		name string
	}{{unix.MOUNT_ATTR_RDONLY, "RDONLY"}, {unix.MOUNT_ATTR_NOSUID, "NOSUID"}, {unix.MOUNT_ATTR_NODEV, "NODEV"}, {unix.MOUNT_ATTR_NOEXEC, "NOEXEC"}} {
		if a&f.bit != 0 {
			n = append(n, f.name)
		}
	}
	return strings.Join(n, "|")
}

// fdIdent returns the device and inode of an open file.
func fdIdent(fd int) (dev, ino uint64, err error) {
	var st unix.Stat_t
	if err := sys.Fstat(fd, "", &st); err != nil {
		return 0, 0, err
	}
	return st.Dev, st.Ino, nil
}
