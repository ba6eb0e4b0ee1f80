package docker

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// hostIdent stats target inside the container's root from the host side,
// through /proc/<pid>/root. It needs ptrace read access to pid: root has
// it, and so has a docker-group user, whose uid the container runs as.
func hostIdent(pid int, target string) (ident, error) {
	var st unix.Stat_t
	p := fmt.Sprintf("/proc/%d/root%s", pid, target)
	if err := sys.Lstat(p, &st); err != nil {
		return ident{}, err
	}
	return ident{Dev: st.Dev, Ino: st.Ino}, nil
}

// hostReadOnly reports whether target, inside the container's root seen
// through /proc/<pid>/root, lies on a read-only mount. The walk from that
// root follows the container's mount table, so this is the topmost mount
// at target there. The same access as hostIdent.
func hostReadOnly(pid int, target string) (bool, error) {
	var st unix.Statfs_t
	p := fmt.Sprintf("/proc/%d/root%s", pid, target)
	if err := sys.Statfs(p, &st); err != nil {
		return false, err
	}
	return st.Flags&unix.ST_RDONLY != 0, nil
}
