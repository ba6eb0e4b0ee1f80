package initproc

import (
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// checkProcRootOnly refuses to start the member while a top-level entry of
// the container's /proc that only root may read (policy.ProcRootOnly) is
// not masked: a root caller's member is uid 0 without a user namespace,
// host root to it. The parent adds such entries of the host's /proc to the
// masked paths; this check holds where the container's kernel is not the
// one the parent listed (a daemon in a virtual machine). A masked file is
// /dev/null's device, a masked directory a tmpfs; the named lists are the
// masked paths the inspection requires already.
func checkProcRootOnly(proc string) error {
	des, err := os.ReadDir(proc)
	if err != nil {
		return fmt.Errorf("list %s to check that every entry only root may read is masked: %w", proc, err)
	}
	named := append(policy.ProcMaskFiles(), policy.ProcMaskDirs()...)
	for _, d := range des {
		n := d.Name()
		if policy.ProcPidEntry(n) || slices.Contains(named, n) || d.Type()&os.ModeSymlink != 0 {
			continue
		}
		p := proc + "/" + n
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return fmt.Errorf("examine %s: %w", p, err)
		}
		if !policy.ProcRootOnly(st.Mode) {
			continue
		}
		var fs unix.Statfs_t
		if st.Mode&unix.S_IFMT == unix.S_IFDIR && unix.Statfs(p, &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
			continue
		}
		return fmt.Errorf("/proc/%s (mode %o) is readable only by root and not masked, and a root caller's member is that root "+
			"(the daemon's kernel is not the one acbox listed at launch?): run the daemon on this host's kernel, or use the native backend", n, st.Mode&0o7777)
	}
	return nil
}
