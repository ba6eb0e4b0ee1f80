package exitscan

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// File capabilities after the run: the set-id case again. The seccomp
// policy refuses writing security.capability, but the kernel removes it,
// as it clears set-id bits, on write, truncate, fallocate,
// copy_file_range and chown, not on a write through a shared mapping; and
// a hard link or a rename is a new name for the same privileged program.
// Each of these sets the inode's ctime, so the walk after the run reads
// security.capability of every regular file whose ctime is at or after
// the launch (one getxattrat each, nothing for older files) and removes it
// where present. Each other name of a stripped inode is named too.

const capsXattr = "security.capability"

// filecaps strips the file capabilities of the regular file name in dirfd
// (path, st), which the member changed or made during the run (recent);
// one it cannot read or strip is named as not checked.
func (w *walker) filecaps(dirfd int, name, path string, st unix.Stat_t) {
	has, err := w.hasCaps(dirfd, name)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) {
			w.uncheck(path, "a file that changed during the run, whose file capabilities acbox could not read ("+errText(err)+
				"); look for them (getcap) before anyone runs it")
		}
		return
	}
	key := inode{st.Dev, st.Ino}
	if !has {
		if w.snap.capsIno[key] { // another name of a file stripped under an earlier one
			w.snap.capsCleared[path] = true
		}
		return
	}
	if err := clearCaps(dirfd, name, st); err != nil {
		w.uncheck(path, "a file with file capabilities that appeared or changed during the run, whose capabilities acbox "+
			"could not remove ("+errText(err)+"); remove it or them (setcap -r) before anyone runs it")
		return
	}
	w.snap.capsCleared[path] = true
	w.snap.capsIno[key] = true
}

// hasCaps reports whether the entry name in dirfd carries file
// capabilities, not following a link: getxattrat(2) (Linux 6.13), one
// lookup relative to dirfd like the walk's fstatat; before it, or where a
// filter around acbox refuses it (EPERM), lgetxattr of
// /proc/self/fd/DIRFD/NAME, about 2.6 times an fstatat (procfs resolves
// the descriptor on every call).
func (w *walker) hasCaps(dirfd int, name string) (bool, error) {
	if !w.noXattrat {
		_, err := sys.Getxattrat(dirfd, name, unix.AT_SYMLINK_NOFOLLOW, capsXattr)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
			return false, nil
		case !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM):
			return false, err
		}
		w.noXattrat = true
	}
	return sys.HasXattrAt(dirfd, name, capsXattr)
}

// clearCaps removes security.capability from the regular file name in
// dirfd, which must still be the inode st describes, through an O_PATH
// descriptor of exactly that inode (as clearSetid). Removing the attribute
// takes CAP_SETFCAP; without it (acbox run by a user), the owner's chown
// of the file to its own owner and group makes the kernel drop it (and any
// set-id bits) as any chown does.
func clearCaps(dirfd int, name string, st unix.Stat_t) error {
	fd, now, err := openSame(dirfd, name, st)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	err = sys.RemovexattrPath(fd, capsXattr)
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		if int(now.Uid) != os.Geteuid() {
			return fmt.Errorf("it belongs to uid %d, and acbox runs as uid %d", now.Uid, os.Geteuid())
		}
		err = sys.FchownPath(fd, int(now.Uid), int(now.Gid))
	}
	if err != nil && !errors.Is(err, unix.ENODATA) {
		return err
	}
	if has, err := sys.HasXattrPath(fd, capsXattr); err != nil || has {
		return errors.New("its file capabilities are still there after acbox removed them")
	}
	return nil
}
