package pin

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Hold opens path O_PATH|O_NOFOLLOW|O_CLOEXEC (plus flags, such as
// O_DIRECTORY), requires that what was opened is still the canonical path,
// and returns the descriptor and its dev/ino. The caller closes fd.
func Hold(path string, flags int) (fd int, dev, ino uint64, err error) {
	fd, err = sys.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return -1, 0, 0, &policy.RefusedError{Subject: path, Why: "cannot be opened without following symlinks: " + errnoText(err), Instead: "grant the real directory, not a symlink"}
	}
	real, rerr := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if rerr != nil || real != path {
		sys.Close(fd)
		return -1, 0, 0, &policy.RefusedError{Subject: path, Why: "changed since it was checked (now " + real + ")", Instead: "retry; if it keeps changing, something is swapping it"}
	}
	var st unix.Stat_t
	if err = sys.Fstat(fd, path, &st); err != nil {
		sys.Close(fd)
		return -1, 0, 0, fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	return fd, uint64(st.Dev), uint64(st.Ino), nil
}

// errnoText is the errno's own text ("too many levels of symbolic links"),
// as the refusal printed it before the path was part of the error: the
// refusal names the path already.
func errnoText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
