package nsjail

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// maskProc hides the host-wide kernel files of the sandbox's fresh /proc
// (policy.ProcMaskFiles, policy.ProcMaskDirs): /dev/null bound read-only
// over each file, an empty read-only tmpfs with mode 0000 over each
// directory, and policy.ProcReadOnlyDirs bound read-only over themselves;
// then every other top-level entry only root may read, whatever its name
// (procrootonly_linux.go). A name the kernel lacks is skipped. One mount
// per name the kernel has; verifyProcMasks checks every one before
// pivot_root.
func (r *rootfs) maskProc() error {
	if err := eachProcEntry(r.maskProcEntry, r.readOnlyProcDir); err != nil {
		return err
	}
	return r.maskRootOnlyProc()
}

// eachProcEntry calls entry for each hidden file (dir false) and directory
// (dir true) of policy's lists, then dir for each read-only directory; the
// first error ends it.
func eachProcEntry(entry func(name string, dir bool) error, dir func(name string) error) error {
	for _, name := range policy.ProcMaskFiles() {
		if err := entry(name, false); err != nil {
			return err
		}
	}
	for _, name := range policy.ProcMaskDirs() {
		if err := entry(name, true); err != nil {
			return err
		}
	}
	for _, name := range policy.ProcReadOnlyDirs() {
		if err := dir(name); err != nil {
			return err
		}
	}
	return nil
}

// readOnlyProcDir binds /proc/NAME read-only over itself (recursively:
// binfmt_misc and the like below it too).
func (r *rootfs) readOnlyProcDir(name string) error {
	fd, err := openNoFollow(r.root, "proc/"+name, true, true)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("make /proc/%s read-only: %w", name, err)
	}
	defer sys.Close(fd)
	tree, err := cloneTree(fd, "/proc/"+name)
	if err != nil {
		return fmt.Errorf("make /proc/%s read-only: %w", name, err)
	}
	defer sys.Close(tree)
	if err := setAttr(tree, "", true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, "/proc/"+name); err != nil {
		return fmt.Errorf("make /proc/%s read-only: %w", name, err)
	}
	if err := moveInto(tree, fd, "/proc/"+name); err != nil {
		return fmt.Errorf("make /proc/%s read-only: %w", name, err)
	}
	r.records = append(r.records, policy.MountRecord{Target: "/proc/" + name, Source: "/proc/" + name, Kind: "proc", Flags: "RDONLY|NOSUID|NODEV|NOEXEC"})
	return nil
}

func (r *rootfs) maskProcEntry(name string, dir bool) error {
	fd, err := openNoFollow(r.root, "proc/"+name, dir, true)
	if errors.Is(err, unix.ENOENT) {
		return nil // this kernel has no such file
	}
	if err != nil {
		return fmt.Errorf("hide /proc/%s: %w", name, err)
	}
	defer sys.Close(fd)
	rec := policy.MountRecord{Target: "/proc/" + name, Kind: "mask"}
	if dir {
		rec.Source, rec.Flags = "tmpfs", "RDONLY|NOSUID|NODEV|NOEXEC,"+maskTmpfsData
		err = mountFS("tmpfs", fdPath(fd), unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, maskTmpfsData)
	} else {
		rec.Source, rec.Flags = "/dev/null", "RDONLY|NOSUID|NOEXEC"
		err = maskFile(fd, "/proc/"+name)
	}
	if err != nil {
		return fmt.Errorf("hide /proc/%s: %w", name, err)
	}
	r.records = append(r.records, rec)
	return nil
}

// verifyProcMasks: every hidden name the new /proc shows is the mask, on a
// read-only mount: /dev/null's character device for a file, a tmpfs for a
// directory. A name that is absent is hidden already. No other top-level
// entry is one only root may read (verifyRootOnlyProc).
func (r *rootfs) verifyProcMasks() error {
	if err := eachProcEntry(r.verifyProcMask, r.verifyProcReadOnly); err != nil {
		return err
	}
	return r.verifyRootOnlyProc()
}

// verifyProcReadOnly: /proc/NAME, where the kernel has it, is on a
// read-only mount in the new root.
func (r *rootfs) verifyProcReadOnly(name string) error {
	fd, err := openNoFollow(r.root, "proc/"+name, false, true)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("/proc/%s: %w", name, err)
	}
	defer sys.Close(fd)
	var fs unix.Statfs_t
	if err := sys.Fstatfs(fd, "/proc/"+name, &fs); err != nil {
		return err
	}
	if fs.Flags&unix.ST_RDONLY == 0 {
		return fmt.Errorf("/proc/%s is writable in the new root: refusing to start", name)
	}
	return nil
}

func (r *rootfs) verifyProcMask(name string, dir bool) error {
	fd, err := openNoFollow(r.root, "proc/"+name, false, true)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("/proc/%s: %w", name, err)
	}
	defer sys.Close(fd)
	var st unix.Stat_t
	var fs unix.Statfs_t
	if err := sys.Fstat(fd, "/proc/"+name, &st); err != nil {
		return err
	}
	if err := sys.Fstatfs(fd, "/proc/"+name, &fs); err != nil {
		return err
	}
	if !procMasked(st, fs, dir) {
		return fmt.Errorf("/proc/%s is not hidden in the new root (mode %o, file system %#x): refusing to start", name, st.Mode, fs.Type)
	}
	return nil
}

// procMasked: the entry is the read-only mask of its kind.
func procMasked(st unix.Stat_t, fs unix.Statfs_t, dir bool) bool {
	if fs.Flags&unix.ST_RDONLY == 0 {
		return false
	}
	if dir {
		return fs.Type == unix.TMPFS_MAGIC && st.Mode&unix.S_IFMT == unix.S_IFDIR
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && unix.Major(st.Rdev) == 1 && unix.Minor(st.Rdev) == 3
}
