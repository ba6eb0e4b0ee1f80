package policy

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

const walkFlags = unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC

// walkOnce opens spelled one component at a time, each relative to the
// one before and without following a symlink, and stops at the first
// symlink (its target read from the link it opened), at the first missing
// component, or at the end (what is there, from the descriptor it holds).
func walkOnce(spelled string) (walkStep, error) {
	fd, err := sys.Open("/", walkFlags|unix.O_DIRECTORY, 0)
	if err != nil {
		return walkStep{}, err
	}
	defer func() {
		if fd >= 0 {
			sys.Close(fd)
		}
	}()
	var dir, cur unix.Stat_t // cur: what is open at fd; dir: the directory it is in
	if err := sys.Fstat(fd, "/", &cur); err != nil {
		return walkStep{}, err
	}
	prefix := "/"
	for _, name := range splitPath(spelled) {
		next := filepath.Join(prefix, name)
		nfd, err := sys.Openat(fd, name, walkFlags, 0)
		switch {
		case errors.Is(err, unix.ENOENT):
			return walkStep{j: judged{real: spelled, found: next, dir: statIdent(cur)}}, nil
		case errors.Is(err, unix.ENOTDIR):
			return walkStep{j: judged{real: spelled, found: next, notDir: true}}, nil
		case err != nil:
			return walkStep{}, err
		}
		sys.Close(fd)
		fd, prefix, dir = nfd, next, cur
		if err := sys.Fstat(fd, next, &cur); err != nil {
			return walkStep{}, err
		}
		if cur.Mode&unix.S_IFMT == unix.S_IFLNK {
			return linkStep(fd, next)
		}
	}
	f := os.NewFile(uintptr(fd), spelled)
	fd = -1
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return walkStep{}, err
	}
	return walkStep{j: judged{real: spelled, found: spelled, info: fi, dir: statIdent(dir)}}, nil
}

func statIdent(st unix.Stat_t) [2]uint64 { return [2]uint64{uint64(st.Dev), uint64(st.Ino)} }

// linkStep reads the target of the symlink open at fd, named link.
func linkStep(fd int, link string) (walkStep, error) {
	buf := make([]byte, unix.PathMax)
	n, err := sys.Readlinkat(fd, "", buf)
	if err != nil {
		return walkStep{}, err
	}
	t := string(buf[:n])
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(link), t)
	}
	return walkStep{link: link, target: filepath.Clean(t)}, nil
}

// openNoLinks opens path to read without following a symlink anywhere on
// it (RESOLVE_NO_SYMLINKS): for a path already resolved, so that a link
// put on it since fails (ELOOP) instead of leading elsewhere.
func openNoLinks(path string) (*os.File, error) {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := sys.Openat2(unix.AT_FDCWD, path, &how)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}
