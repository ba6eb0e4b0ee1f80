package coordinator

import (
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
	"golang.org/x/sys/unix"
)

// StatusFile is the descriptor --status-fd names, checked before the run:
// open, and open for writing. Events are written without checking each
// write (a reader that went away must not stop the sandbox), so a
// descriptor open read-only (`3</dev/null`) would lose every event
// without a word.
//
// The checks use the bare descriptor: an *os.File made for a refused one
// would close it from its finalizer at some later garbage collection,
// when the number may belong to another file (a caller that goes on, as
// the tests do, then saw EBADF on an unrelated write).
func StatusFile(fd int) (*os.File, error) {
	var st unix.Stat_t
	if err := sys.Fstat(fd, "status", &st); err != nil {
		return nil, fmt.Errorf("%w: --status-fd %d is not open: %w", policy.ErrInvalid, fd, err)
	}
	if ok, err := sys.Writable(fd); err != nil || !ok {
		return nil, fmt.Errorf("%w: --status-fd %d is not open for writing: open it with >, as in 3>events.jsonl or 3>&1", policy.ErrInvalid, fd)
	}
	return os.NewFile(uintptr(fd), "status"), nil
}
