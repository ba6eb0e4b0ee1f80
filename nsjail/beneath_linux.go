package nsjail

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// mkdirBeneath opens (creating as needed) the directory rel beneath the
// directory open at root, never following a symlink and never leaving root.
// It returns an O_PATH descriptor of the directory.
func mkdirBeneath(root int, rel string, mode uint32) (int, error) {
	cur, err := sys.Dup(root)
	if err != nil {
		return -1, err
	}
	for _, c := range splitPath(rel) {
		next, err := openNoFollow(cur, c, true, true)
		if errors.Is(err, unix.ENOENT) {
			if err = sys.Mkdirat(cur, c, mode); err != nil && !errors.Is(err, unix.EEXIST) {
				sys.Close(cur)
				return -1, &MountError{Op: "mkdir", Target: rel, Err: err}
			}
			next, err = openNoFollow(cur, c, true, true)
		}
		sys.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// fileBeneath opens (creating an empty file as needed) rel beneath root, as
// a mount point for a file or socket.
func fileBeneath(root int, rel string) (int, error) {
	dir, name := filepath.Split(rel)
	dfd, err := mkdirBeneath(root, dir, 0o755)
	if err != nil {
		return -1, err
	}
	defer sys.Close(dfd)
	fd, err := openNoFollow(dfd, name, false, true)
	if errors.Is(err, unix.ENOENT) {
		if err = createEmpty(dfd, name); err != nil {
			return -1, &MountError{Op: "create", Target: rel, Err: err}
		}
		fd, err = openNoFollow(dfd, name, false, true)
	}
	return fd, err
}

func createEmpty(dfd int, name string) error {
	f, err := sys.Openat(dfd, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	return sys.Close(f)
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.Clean("/"+p), "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
