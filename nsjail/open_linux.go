package nsjail

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// heldPaths are the grants and mount sources the parent keeps open for the
// whole launch, with the identity the helper must find again.
type heldPaths struct {
	fds    []int
	idents []ident
}

func (h *heldPaths) close() {
	for _, fd := range h.fds {
		unix.Close(fd)
	}
	h.fds = nil
}

// openGrants opens every grant and runtime mount source O_PATH|O_NOFOLLOW,
// records dev/ino, and requires that what was opened is still the canonical
// path the plan names (O_NOFOLLOW alone protects only the last component).
func openGrants(p *policy.Plan) (*heldPaths, error) {
	h := &heldPaths{}
	for _, g := range p.Grants {
		if err := h.open(g.Path, unix.O_DIRECTORY); err != nil {
			h.close()
			return nil, err
		}
		if err := h.matchPlan(g); err != nil {
			h.close()
			return nil, err
		}
	}
	for _, m := range p.Mounts {
		flags := 0
		if m.Kind == "dir" {
			flags = unix.O_DIRECTORY
		}
		if err := h.open(m.Source, flags); err != nil {
			h.close()
			return nil, err
		}
	}
	return h, nil
}

func (h *heldPaths) open(path string, flags int) error {
	fd, dev, ino, err := Hold(path, flags)
	if err != nil {
		return err
	}
	h.fds = append(h.fds, fd)
	h.idents = append(h.idents, ident{Path: path, Dev: dev, Ino: ino})
	return nil
}

// matchPlan requires that the grant just opened is the directory the plan
// was made for (see MatchGrant).
func (h *heldPaths) matchPlan(g policy.Grant) error {
	got := h.idents[len(h.idents)-1]
	return MatchGrant(g, got.Dev, got.Ino)
}

// Hold opens path O_PATH|O_NOFOLLOW (plus flags, such as O_DIRECTORY),
// requires that what was opened is still the canonical path (O_NOFOLLOW
// alone protects only the last component), and returns the descriptor and
// its dev/ino. Both backends hold every bind source this way from the
// checks until the mount is verified. Errors are refusals naming the path.
func Hold(path string, flags int) (fd int, dev, ino uint64, err error) {
	fd, err = unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return -1, 0, 0, &policy.RefusedError{Subject: path, Why: "cannot be opened without following symlinks: " + err.Error(), Instead: "grant the real directory, not a symlink"}
	}
	real, rerr := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if rerr != nil || real != path {
		unix.Close(fd)
		return -1, 0, 0, &policy.RefusedError{Subject: path, Why: "changed since it was checked (now " + real + ")", Instead: "retry; if it keeps changing, something is swapping it"}
	}
	if dev, ino, err = fdIdent(fd); err != nil {
		unix.Close(fd)
		return -1, 0, 0, fmt.Errorf("%w: fstat %s: %v", policy.ErrCannotSandbox, path, err)
	}
	return fd, dev, ino, nil
}

// MatchGrant requires that a grant opened with Hold is the directory the
// plan was made for (when the plan recorded one): a directory swapped in
// between planning and launching is refused, not mounted.
func MatchGrant(g policy.Grant, dev, ino uint64) error {
	if g.Ino == 0 || (dev == g.Dev && ino == g.Ino) {
		return nil
	}
	return &policy.RefusedError{Subject: g.Path, Why: fmt.Sprintf("is not the directory that was planned (dev/ino %d/%d, planned %d/%d): it was replaced", dev, ino, g.Dev, g.Ino), Instead: "retry; if it keeps changing, something is swapping it"}
}
