package docker

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// held is every bind source, opened before the container is created and
// kept open until the member is released, with the identity the mounted
// target must show. Docker resolves bind sources by path at start, so this
// is what a symlink swapped in between the checks and start is caught by.
// The logic is nsjail/open_linux.go's, copied: that one is unexported.
type held struct {
	fds    []int
	idents map[string]ident // by target inside the container
}

type ident struct {
	Source   string
	Dev, Ino uint64
}

func (h *held) close() {
	for _, fd := range h.fds {
		unix.Close(fd)
	}
	h.fds = nil
}

// holdSources opens the source of every bind in s O_PATH|O_NOFOLLOW and
// requires that what was opened is still the canonical path (O_NOFOLLOW
// alone protects only the last component). Grants and directory mounts are
// opened O_DIRECTORY too, and a grant must still be the directory the plan
// was made for: a grant swapped for a symlink or another directory is
// refused here, as the native backend refuses it (exit 125), before
// anything is created.
func holdSources(s *setup) (*held, error) {
	h := &held{idents: map[string]ident{}}
	grants := map[string]coordinator.Grant{}
	for _, g := range s.plan.Grants {
		grants[g.Path] = g
	}
	dirs := map[string]bool{}
	for _, m := range s.plan.Mounts {
		dirs[m.Target] = m.Kind == "dir"
	}
	for _, m := range s.binds {
		g, isGrant := grants[m.Target]
		flags := 0
		if isGrant || dirs[m.Target] {
			flags = unix.O_DIRECTORY
		}
		id, err := h.open(m.Source, flags)
		if err == nil && isGrant {
			err = matchPlan(g, id)
		}
		if err != nil {
			h.close()
			return nil, err
		}
		h.idents[m.Target] = id
	}
	return h, nil
}

// matchPlan is nsjail/open_linux.go's: the grant opened is the directory
// the plan recorded, when it recorded one.
func matchPlan(g coordinator.Grant, got ident) error {
	if g.Ino == 0 || (got.Dev == g.Dev && got.Ino == g.Ino) {
		return nil
	}
	return &coordinator.RefusedError{Subject: g.Path, Why: fmt.Sprintf("is not the directory that was planned (dev/ino %d/%d, planned %d/%d): it was replaced", got.Dev, got.Ino, g.Dev, g.Ino), Instead: "retry; if it keeps changing, something is swapping it"}
}

func (h *held) open(path string, flags int) (ident, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return ident{}, &coordinator.RefusedError{Subject: path, Why: "cannot be opened without following symlinks: " + err.Error(), Instead: "grant the real directory, not a symlink"}
	}
	h.fds = append(h.fds, fd)
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil || real != path {
		return ident{}, &coordinator.RefusedError{Subject: path, Why: "changed since it was checked (now " + real + ")", Instead: "retry; if it keeps changing, something is swapping it"}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return ident{}, fmt.Errorf("%w: fstat %s: %v", coordinator.ErrCannotSandbox, path, err)
	}
	return ident{Source: path, Dev: st.Dev, Ino: st.Ino}, nil
}

// hostIdent stats target inside the container's root from the host side,
// through /proc/<pid>/root. It needs ptrace read access to pid: root has
// it, and so has a docker-group user, whose uid the container runs as.
func hostIdent(pid int, target string) (ident, error) {
	var st unix.Stat_t
	p := fmt.Sprintf("/proc/%d/root%s", pid, target)
	if err := unix.Lstat(p, &st); err != nil {
		return ident{}, &os.PathError{Op: "lstat", Path: p, Err: err}
	}
	return ident{Dev: st.Dev, Ino: st.Ino}, nil
}
