package exitscan

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// Set-id files after the run. The seccomp policy refuses every call that
// makes one, but two ways to a set-id program need no such call: the
// kernel clears S_ISUID/S_ISGID on write, truncate, fallocate and
// copy_file_range, not on a write through a shared mapping, so a member
// can put any content into a set-id file already in a write grant; and a
// hard link to such a file is a new name for a set-id program. Both set
// the inode's ctime, which the member cannot set back. So the walk after
// the run removes the set-id bits of every set-id file whose ctime is at or
// after the launch (and, with --report, of every one that is new since the
// walk before). Clearing after the run rather than binding each set-id
// file read-only at launch keeps the launch path free of a walk; the
// member's program cannot run outside until the sandbox has ended, and the
// sandbox ends only after this check (only SIGKILL of acbox skips it).

// setid clears the set-id bits of the file name in dirfd (path) when the
// member changed it or made it (recent, or new since the walk before the
// run); one it cannot clear is named as not checked.
func (w *walker) setid(dirfd int, name, path string, st unix.Stat_t, recent bool) {
	if !w.after {
		return
	}
	if !recent && w.prior != nil {
		old, ok := w.prior.found[path]
		recent = !ok || old != w.snap.found[path]
	}
	if !recent {
		return
	}
	if err := clearSetid(dirfd, name, st); err != nil {
		w.uncheck(path, "a set-id file that appeared or changed during the run, whose set-id bits acbox could not remove ("+
			errText(err)+"); remove it or clear them (chmod ug-s) before anyone runs it")
		return
	}
	w.snap.cleared[path] = true
	w.snap.clearedIno[inode{st.Dev, st.Ino}] = true
}

// clearSetid removes S_ISUID and S_ISGID from the regular file name in
// dirfd, which must still be the inode st describes. The chmod goes
// through an O_PATH descriptor of exactly that inode (/proc/self/fd), so
// no link is followed and nothing is resolved twice.
func clearSetid(dirfd int, name string, st unix.Stat_t) error {
	fd, now, err := openSame(dirfd, name, st)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	if os.Geteuid() != 0 && int(now.Uid) != os.Geteuid() {
		return fmt.Errorf("it belongs to uid %d, and acbox runs as uid %d", now.Uid, os.Geteuid())
	}
	mode := now.Mode & 0o7777 &^ (unix.S_ISUID | unix.S_ISGID)
	if err := sys.FchmodPath(fd, mode); err != nil {
		return err
	}
	if sys.Fstat(fd, name, &now) != nil || now.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
		return errors.New("its set-id bits are still set after chmod")
	}
	return nil
}

// openSame opens the regular file name in dirfd O_PATH, without following
// a link, and only while it is still the inode st describes: what the
// scan changes goes through that descriptor (/proc/self/fd), so nothing is
// resolved twice. It returns the descriptor and the file's state now.
func openSame(dirfd int, name string, st unix.Stat_t) (int, unix.Stat_t, error) {
	var now unix.Stat_t
	fd, err := sys.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, now, err
	}
	if err := sys.Fstat(fd, name, &now); err != nil {
		sys.Close(fd)
		return -1, now, err
	}
	if now.Dev != st.Dev || now.Ino != st.Ino || now.Mode&unix.S_IFMT != unix.S_IFREG {
		sys.Close(fd)
		return -1, now, errors.New("it was replaced while acbox looked at it")
	}
	return fd, now, nil
}

// restoreOwner gives the entry name in dirfd (st, which this process
// owns; not a link) back the owner permission bits want, through an
// O_PATH descriptor of the same inode. It reports whether it did.
func restoreOwner(dirfd int, name string, st unix.Stat_t, want uint32) bool {
	fd, err := sys.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer sys.Close(fd)
	var now unix.Stat_t
	if sys.Fstat(fd, name, &now) != nil || now.Dev != st.Dev || now.Ino != st.Ino || now.Mode&unix.S_IFMT == unix.S_IFLNK ||
		int(now.Uid) != os.Geteuid() || now.Mode&want == want {
		return false
	}
	return sys.FchmodPath(fd, now.Mode&0o7777|want) == nil
}
