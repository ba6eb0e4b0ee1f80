package nsjail

import (
	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/pin"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// heldPaths are the grants and mount sources the parent keeps open for the
// whole launch, with the identity the helper must find again.
type heldPaths struct {
	fds    []int
	idents []ident
}

func (h *heldPaths) close() {
	for _, fd := range h.fds {
		sys.Close(fd)
	}
	h.fds = nil
}

// openGrants holds every grant and runtime mount source by descriptor
// (pin.Hold), records dev/ino, and requires that each grant is still the
// directory the plan was made for (pin.MatchGrant).
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
	fd, dev, ino, err := pin.Hold(path, flags)
	if err != nil {
		return err
	}
	h.fds = append(h.fds, fd)
	h.idents = append(h.idents, ident{Path: path, Dev: dev, Ino: ino})
	return nil
}

// matchPlan requires that the grant just opened is the directory the plan
// was made for (see pin.MatchGrant).
func (h *heldPaths) matchPlan(g policy.Grant) error {
	got := h.idents[len(h.idents)-1]
	return pin.MatchGrant(g, got.Dev, got.Ino)
}
