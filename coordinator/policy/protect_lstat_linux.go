package policy

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// lstatBelow returns what each of names is, one below the other under the
// write grant g, as one walk: g is opened with no symlink on its path and
// must still be the directory the plan recorded (Dev, Ino), and each name
// is opened without following a symlink from the directory opened before
// it. It stops after the first symlink (not followed), or at the first
// name that cannot be opened (its error). Looking each path up again by
// name instead (lstat follows every link but the last) let a member that
// swapped a directory on the way for a link, between two looks, have acbox
// report what lies behind the link.
func lstatBelow(g Grant, names []string) ([]fs.FileInfo, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := sys.Openat2(unix.AT_FDCWD, g.Path, &how)
	if err != nil {
		return nil, err
	}
	dir := os.NewFile(uintptr(fd), g.Path)
	defer func() { dir.Close() }()
	if err := sameDir(dir, g); err != nil {
		return nil, err
	}
	var out []fs.FileInfo
	for _, name := range names {
		nfd, err := sys.Openat(int(dir.Fd()), name, walkFlags, 0)
		if err != nil {
			return out, err
		}
		dir.Close()
		dir = os.NewFile(uintptr(nfd), name)
		fi, err := dir.Stat()
		if err != nil {
			return out, err
		}
		out = append(out, fi)
		if fi.Mode()&os.ModeSymlink != 0 {
			return out, nil
		}
		if afterLstat != nil {
			afterLstat(name)
		}
	}
	return out, nil
}

// sameDir: dir, opened at g.Path, is the grant the plan recorded (a plan
// made by hand, in tests, records none).
func sameDir(dir *os.File, g Grant) error {
	if g.Dev == 0 && g.Ino == 0 {
		return nil
	}
	fi, err := dir.Stat()
	if err != nil {
		return err
	}
	if dev, ino := fileIdent(fi); dev != g.Dev || ino != g.Ino {
		return errors.New("the grant was replaced since it was checked")
	}
	return nil
}
