package coordinator

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// withinEndWait bounds how long a sandbox's checks after the run wait for
// the sandboxes launched --within it: their members get requesterGrace
// after SIGTERM, then their sandboxes are killed and their own checks run.
const withinEndWait = 30 * time.Second

// endWithin waits, once sandbox id has ended, until every sandbox
// launched --within it (at any depth) has ended and its acbox has exited,
// that is has run its checks after the run; only then do id's own checks
// run, so that nothing such a child writes comes after them. A child
// still running after withinEndWait is an ErrUnchecked error (what it
// writes later is not checked by id's checks); id's checks go on.
func (l *Launcher) endWithin(id string, errw io.Writer) error {
	if l.Registry == nil {
		return nil
	}
	deadline, said := time.Now().Add(withinEndWait), false
	for {
		live := l.liveWithin(id)
		if len(live) == 0 {
			return nil
		}
		if !said {
			fmt.Fprintf(errw, "acbox: waiting for the sandboxes launched within %s (%s) to end and finish their checks\n", id, ids(live))
			said = true
		}
		left := time.Until(deadline)
		if left <= 0 {
			closeAll(fds(live))
			return fmt.Errorf("%w: sandboxes launched within %s (%s) did not end within %v after it; "+
				"inspect its write grants for what they wrote after the checks", policy.ErrUnchecked, id, ids(live), withinEndWait)
		}
		for _, w := range live {
			sys.WaitReadable(w.fd, min(left, 250*time.Millisecond))
			sys.Close(w.fd)
		}
	}
}

// withinOwner is the acbox process of a sandbox launched --within, pinned.
type withinOwner struct {
	id string
	fd int
}

// liveWithin pins the owners of the sandboxes launched --within id that
// still run (a pidfd is readable once its process has exited).
func (l *Launcher) liveWithin(id string) []withinOwner {
	var live []withinOwner
	for _, e := range descendants(l.Registry, id) {
		if !e.Within {
			continue // a broker's child: the broker's end waits for it
		}
		fd, err := pin(e.OwnerPid, e.OwnerStart)
		if err != nil {
			continue // gone
		}
		if ok, _ := sys.WaitReadable(fd, 0); ok {
			sys.Close(fd)
			continue
		}
		live = append(live, withinOwner{e.ID, fd})
	}
	return live
}

func ids(ws []withinOwner) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.id)
	}
	return strings.Join(s, ", ")
}

func fds(ws []withinOwner) []int {
	var s []int
	for _, w := range ws {
		s = append(s, w.fd)
	}
	return s
}
