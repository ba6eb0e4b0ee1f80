package registry

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxStateFile bounds what is read of one registry entry or ticket (an
// entry holds its plan, a few KiB; this leaves room for thousands of
// grants).
const maxStateFile = 16 << 20

// readStateFile reads a registry entry or a queue ticket: a regular file,
// never through a symlink, never blocking on a FIFO, at most maxStateFile
// bytes. Every launch reads these under the registry lock, so a FIFO or a
// link to /dev/zero put there would otherwise hang or exhaust them all.
// Anything else is an error, which the callers treat as a damaged file.
func readStateFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err == nil && len(b) > maxStateFile {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxStateFile)
	}
	return b, err
}
