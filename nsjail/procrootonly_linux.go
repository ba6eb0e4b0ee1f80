package nsjail

import (
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/dirents"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// procEntry is a top-level entry of the new root's /proc: its name and
// st_mode (type bits included), as fstatat sees it, through any mount on it.
type procEntry struct {
	name string
	mode uint32
}

// dir says whether the entry is a directory (a tmpfs mask is one too).
func (e procEntry) dir() bool { return e.mode&unix.S_IFMT == unix.S_IFDIR }

// listProc lists the top level of the new root's /proc (one getdents pass
// and one fstatat per entry), leaving out the processes' directories,
// symbolic links (self, thread-self, mounts, net) and the names of
// policy's lists, which maskProc and verifyProcMasks handle by name.
func (r *rootfs) listProc() ([]procEntry, error) {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := sys.Openat2(r.root, "proc", &how)
	if err != nil {
		return nil, fmt.Errorf("list /proc for the entries only root may read: %w", err)
	}
	defer sys.Close(fd)
	named := append(policy.ProcMaskFiles(), policy.ProcMaskDirs()...)
	var out []procEntry
	var statErr error
	err = dirents.NewReader(4<<10).Each(fd, "/proc", nil, func(b []byte, typ uint8) bool {
		name := string(b)
		if typ == unix.DT_LNK || policy.ProcPidEntry(name) || slices.Contains(named, name) {
			return true
		}
		var st unix.Stat_t
		if statErr = sys.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); statErr != nil {
			return false
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			out = append(out, procEntry{name: name, mode: st.Mode})
		}
		return true
	})
	if err == nil {
		err = statErr
	}
	if err != nil {
		return nil, fmt.Errorf("list /proc for the entries only root may read: %w", err)
	}
	return out, nil
}

// maskRootOnlyProc hides every top-level entry of the new /proc that only
// root may read (policy.ProcRootOnly) and that policy's lists do not name,
// as maskProcEntry hides the named ones: a root caller's member is that
// root, and a kernel can add such a file under any name (a custom kernel's
// /proc/program_cpu, 0400, lists the programs run on the whole host).
// Done for every caller: another caller's member is refused by the mode
// anyway, and one rule is one check.
func (r *rootfs) maskRootOnlyProc() error {
	entries, err := r.listProc()
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !policy.ProcRootOnly(e.mode) {
			continue
		}
		if err := r.maskProcEntry(e.name, e.dir()); err != nil {
			return err
		}
	}
	return nil
}

// verifyRootOnlyProc lists the new root's /proc again before pivot_root:
// an entry policy's lists do not name must be readable by others (a
// regular file or a directory that passes policy.ProcRootOnly), or be the
// read-only mask of its kind. Anything else, an entry the kernel added
// since maskRootOnlyProc listed included, refuses the launch.
func (r *rootfs) verifyRootOnlyProc() error {
	entries, err := r.listProc()
	if err != nil {
		return err
	}
	for _, e := range entries {
		t := e.mode & unix.S_IFMT
		if (t == unix.S_IFREG || t == unix.S_IFDIR) && !policy.ProcRootOnly(e.mode) {
			continue
		}
		if err := r.verifyProcMask(e.name, e.dir()); err != nil {
			return fmt.Errorf("%w (only root may read it, and a root caller's member is that root)", err)
		}
	}
	return nil
}
