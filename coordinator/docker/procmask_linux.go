package docker

import (
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// hostRootOnlyProc lists the top level of the host's /proc (the daemon's
// containers run on this kernel, so a container's fresh proc has the same
// entries) and returns, as paths, every regular file or directory there
// that only root may read (policy.ProcRootOnly) and policy's lists do not
// name. A root caller's container member is uid 0 without a user
// namespace, host root to them; they join the masked paths, which the
// inspection then requires. Not a process's directory, not a link.
func hostRootOnlyProc() ([]string, error) {
	des, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: list the host's /proc for the entries only root may read, to mask them: %w", policy.ErrCannotSandbox, err)
	}
	named := append(policy.ProcMaskFiles(), policy.ProcMaskDirs()...)
	var out []string
	for _, d := range des {
		n := d.Name()
		if !(d.Type().IsRegular() || d.IsDir()) || policy.ProcPidEntry(n) || slices.Contains(named, n) {
			continue
		}
		var st unix.Stat_t
		if err := sys.Lstat("/proc/"+n, &st); err != nil {
			return nil, fmt.Errorf("%w: examine the host's /proc/%s, to mask it if only root may read it: %w", policy.ErrCannotSandbox, n, err)
		}
		// A regular file or directory that is something else here is a
		// mask of the parent's own view (acbox run inside a container):
		// its mode cannot be seen, so it is masked too.
		seen := st.Mode & unix.S_IFMT
		if policy.ProcRootOnly(st.Mode) || (seen != unix.S_IFREG && seen != unix.S_IFDIR) {
			out = append(out, "/proc/"+n)
		}
	}
	return out, nil
}
