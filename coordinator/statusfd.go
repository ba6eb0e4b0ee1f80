package coordinator

import (
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// StatusFile is the descriptor --status-fd names, checked before the run:
// open, and open for writing. Events are written without checking each
// write (a reader that went away must not stop the sandbox), so a
// descriptor open read-only (`3</dev/null`) would lose every event
// without a word.
func StatusFile(fd int) (*os.File, error) {
	f := os.NewFile(uintptr(fd), "status")
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: --status-fd %d is not open: %w", policy.ErrInvalid, fd, err)
	}
	if ok, err := sys.Writable(fd); err != nil || !ok {
		return nil, fmt.Errorf("%w: --status-fd %d is not open for writing: open it with >, as in 3>events.jsonl or 3>&1", policy.ErrInvalid, fd)
	}
	return f, nil
}
