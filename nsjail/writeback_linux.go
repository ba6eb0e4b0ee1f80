package nsjail

import (
	"fmt"
	"io"
	"strings"

	"github.com/acbox/acbox/coordinator/sys"
)

// writeBack writes value to the kernel file open read-write at fd (path
// names it in errors) and returns what the file reads back from its start,
// trimmed, through the same descriptor: one open for both, where a write
// then a fresh read costs a second open and a whole-file read. Used for
// the per-user counters pid 1 sets and the cgroup limits the parent sets.
func writeBack(fd int, path, value string) (string, error) {
	if n, err := sys.Write(fd, path, []byte(value)); err != nil || n != len(value) {
		if err == nil {
			err = io.ErrShortWrite
		}
		return "", fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	var buf [32]byte
	n := 0
	_, err := sys.Seek(fd, path, 0, io.SeekStart)
	if err == nil {
		n, err = sys.Read(fd, path, buf[:])
	}
	if err != nil {
		return "", fmt.Errorf("reading back %s: %w", path, err)
	}
	return strings.TrimSpace(string(buf[:n])), nil
}
