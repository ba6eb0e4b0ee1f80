package docker

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/pin"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// held is every bind source, opened before the container is created and
// kept open until the member is released, with the identity the mounted
// target must show. Docker resolves bind sources by path at start, so this
// is what a symlink swapped in between the checks and start is caught by.
// The opening and the plan check are shared with the native backend
// (package coordinator/pin).
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
		sys.Close(fd)
	}
	h.fds = nil
}

// holdSources opens the source of every bind in s O_PATH|O_NOFOLLOW and
// requires that what was opened is still the canonical path (O_NOFOLLOW
// alone protects only the last component). Grants, directory mounts and
// directory carve-outs are opened O_DIRECTORY too; a grant must still be
// the directory the plan was made for, and a carve-out the file the
// coordinator checked. A grant or carve-out swapped for a symlink or
// another file is refused here, as the native backend refuses it (exit
// 125), before anything is created.
func holdSources(s *setup) (*held, error) {
	h := &held{idents: map[string]ident{}}
	planned := map[string]func(ident) error{}
	dirs := map[string]bool{}
	for _, m := range s.plan.Mounts {
		dirs[m.Target] = m.Kind == "dir"
	}
	for _, g := range s.plan.Grants {
		planned[g.Path] = func(id ident) error { return matchPlan(g, id) }
		dirs[g.Path] = true
	}
	for _, c := range s.plan.Protected {
		planned[c.Path] = func(id ident) error { return matchCarve(c, id) }
		dirs[c.Path] = c.Kind == "dir"
	}
	for _, m := range s.binds {
		flags := 0
		if dirs[m.Target] {
			flags = unix.O_DIRECTORY
		}
		id, err := h.open(m.Source, flags)
		if match := planned[m.Target]; err == nil && match != nil {
			err = match(id)
		}
		if err != nil {
			h.close()
			return nil, err
		}
		h.idents[m.Target] = id
	}
	return h, nil
}

// matchPlan: the grant opened is the directory the plan recorded.
func matchPlan(g policy.Grant, got ident) error {
	return pin.MatchGrant(g, got.Dev, got.Ino)
}

// matchCarve: the carve-out opened is the file the coordinator checked.
// Unlike a grant's, its identity is always recorded.
func matchCarve(c policy.Carveout, got ident) error {
	if got.Dev == c.Dev && got.Ino == c.Ino {
		return nil
	}
	return &policy.RefusedError{Subject: c.Path, Why: fmt.Sprintf("is protected (%s) but is not the file that was checked (dev/ino %d/%d, checked %d/%d): it was replaced", c.Why, got.Dev, got.Ino, c.Dev, c.Ino), Instead: "retry; if it keeps changing, something is swapping it"}
}

func (h *held) open(path string, flags int) (ident, error) {
	fd, dev, ino, err := pin.Hold(path, flags)
	if err != nil {
		return ident{}, err
	}
	h.fds = append(h.fds, fd)
	return ident{Source: path, Dev: dev, Ino: ino}, nil
}
