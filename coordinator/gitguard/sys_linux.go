package gitguard

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// The syscalls of the guard, each on a directory descriptor so that no
// path is resolved through a link. EACCES on something this user owns is
// met by giving the owner its permissions back and trying once more: the
// member may have taken them to hide what it planted.

// openRoot opens an absolute directory without following any symlink.
func openRoot(path string) (int, error) {
	fd, err := openRoot2(path)
	if errors.Is(err, unix.EACCES) && restoreAt(unix.AT_FDCWD, path, 0o700) {
		fd, err = openRoot2(path)
	}
	return fd, err
}

func openRoot2(path string) (int, error) {
	return sys.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

// openSub opens the directory name in dirfd, never a link.
func openSub(dirfd int, name string) (int, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := sys.Openat(dirfd, name, flags, 0)
	if errors.Is(err, unix.EACCES) && restoreAt(dirfd, name, 0o700) {
		fd, err = sys.Openat(dirfd, name, flags, 0)
	}
	return fd, err
}

// entry is what lstat says of one name.
type entry struct {
	mode     uint32 // S_IFMT bits and permissions
	dev, ino uint64
	uid      uint32
	ctime    unix.Timespec // the member can set mtime, not ctime
}

// supported: the walk's syscalls exist here.
const supported = true

func (e entry) isDir() bool { return e.mode&unix.S_IFMT == unix.S_IFDIR }
func (e entry) isReg() bool { return e.mode&unix.S_IFMT == unix.S_IFREG }
func (e entry) isLnk() bool { return e.mode&unix.S_IFMT == unix.S_IFLNK }

// lstatAt stats name in dirfd without following it; ok is false when it
// does not exist.
func lstatAt(dirfd int, name string) (entry, bool, error) {
	var st unix.Stat_t
	err := sys.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, err
	}
	return entry{mode: st.Mode, dev: st.Dev, ino: st.Ino, uid: st.Uid, ctime: st.Ctim}, true, nil
}

// readSmall reads at most max bytes of the regular file name in dirfd.
func readSmall(dirfd int, name string, max int) ([]byte, error) {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := sys.Openat(dirfd, name, flags, 0)
	if errors.Is(err, unix.EACCES) && restoreAt(dirfd, name, 0o600) {
		fd, err = sys.Openat(dirfd, name, flags, 0)
	}
	if err != nil {
		return nil, err
	}
	defer sys.Close(fd)
	buf := make([]byte, max)
	n, err := sys.Read(fd, name, buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// readAll reads the regular file name in dirfd whole; a file larger than
// max is an error.
func readAll(dirfd int, name string, max int64) ([]byte, error) {
	fd, err := sys.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EACCES) && restoreAt(dirfd, name, 0o600) {
		fd, err = sys.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	// One buffer of the size seen, and one byte more to see the file grow:
	// never the doubling copies of a read to the end.
	b := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, b)
	switch {
	case err == nil:
		return nil, fmt.Errorf("it grew while acbox read it")
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return b[:n], nil
	}
	return nil, err
}

func readlinkAt(dirfd int, name string) (string, error) {
	buf := make([]byte, 256)
	n, err := sys.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// moveAside renames name in dirfd to name.acbox-quarantine-RANDOM, a name
// the member cannot have taken in advance, never replacing anything.
func moveAside(dirfd int, name string) (string, error) {
	var err error
	for try := 0; try < 4; try++ {
		aside := name + ".acbox-quarantine-" + randomSuffix()
		err = sys.Renameat2(dirfd, name, dirfd, aside, unix.RENAME_NOREPLACE)
		if err == nil {
			return aside, nil
		}
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			restoreAt(dirfd, ".", 0o700)
		}
	}
	return "", err
}

// createFile creates name in dirfd with content; it must not exist.
func createFile(dirfd int, name string, content []byte) error {
	fd, err := sys.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if errors.Is(err, unix.EACCES) && restoreAt(dirfd, ".", 0o700) {
		fd, err = sys.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	if _, err := sys.Write(fd, name, content); err != nil {
		return err
	}
	return sys.Fsync(fd, name)
}

// restoreAt gives name in dirfd (not a link) back the owner permission
// bits want, when this process owns it; it reports whether it changed
// anything. The chmod goes through an O_PATH descriptor of exactly that
// inode (/proc/self/fd), so nothing is resolved twice.
func restoreAt(dirfd int, name string, want uint32) bool {
	fd, err := sys.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer sys.Close(fd)
	return restoreFd(fd, want)
}

func restoreFd(fd int, want uint32) bool {
	var st unix.Stat_t
	if sys.Fstat(fd, "", &st) != nil || int(st.Uid) != os.Getuid() || st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Mode&want == want {
		return false
	}
	return sys.FchmodPath(fd, st.Mode&0o7777|want) == nil
}

// dirNames lists the names in the directory open at fd (read from its
// start; fd stays open), with whether each is a directory, from getdents'
// d_type, or lstat where the file system does not say.
func dirNames(fd int) ([]dirent, error) {
	if _, err := sys.Seek(fd, ".", 0, 0); err != nil {
		return nil, err
	}
	var out []dirent
	buf := make([]byte, 32<<10)
	for {
		n, err := sys.Getdents(fd, ".", buf) // EINTR is retried there
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return out, unix.EIO
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." {
				out = append(out, direntOf(fd, s, typ))
			}
		}
	}
}

// direntOf types a listed name from getdents' d_type, or lstat where the
// file system does not say.
func direntOf(fd int, name string, typ byte) dirent {
	if typ == unix.DT_UNKNOWN {
		e, ok, _ := lstatAt(fd, name)
		return dirent{name: name, dir: ok && e.isDir(), lnk: ok && e.isLnk()}
	}
	return dirent{name: name, dir: typ == unix.DT_DIR, lnk: typ == unix.DT_LNK}
}

func randomSuffix() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
