package sys

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ReadFile reads the file at path whole (open(2), read(2) to the end,
// close(2)). It is os.ReadFile without what os adds to every open: os
// offers each descriptor to the runtime's poller (four fcntl calls and an
// epoll_ctl that epoll refuses for a regular file) and stats it for a size
// that /proc and /sys files do not report. A launch reads a few dozen of
// those, a few hundred bytes each.
func ReadFile(path string) ([]byte, error) {
	fd, err := Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return ReadAll(fd, path, -1)
}

// ReadAll reads fd to its end; name is its path, for the error. limit >= 0
// bounds it: a file longer than limit bytes is an error.
func ReadAll(fd int, name string, limit int) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := Read(fd, name, buf[len(buf):cap(buf)])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if limit >= 0 && len(buf) > limit {
			return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
		}
	}
}
