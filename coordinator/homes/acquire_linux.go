package homes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Acquire makes the persisted home if it is missing, checks it, locks it
// for this run, measures it against the quota and records when it was
// last used. release unlocks it; call it once the checks after the run are
// done. Refusals are policy.ErrRefused errors naming the remedy; a failing
// call is policy.ErrCannotSandbox.
func Acquire(h *policy.PersistedHome, uid int) (release func(), err error) {
	dir, name := filepath.Dir(h.Path), filepath.Base(h.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: making the homes directory: %w", policy.ErrCannotSandbox, err)
	}
	dfd, err := openHomes(dir, uid)
	if err != nil {
		return nil, err
	}
	defer sys.Close(dfd)
	fd, err := openHome(dfd, name, h.Path, uid, true)
	if err != nil {
		return nil, err
	}
	if err := lock(fd, dfd, name, h.Path); err != nil {
		sys.Close(fd)
		return nil, err
	}
	if err := checkQuota(fd, h); err != nil {
		sys.Close(fd)
		return nil, err
	}
	stamp(dfd, name)
	return func() { sys.Close(fd) }, nil
}

// openHomes opens the homes directory, following no symlink on the way
// (its path is canonical), and checks its owner and mode.
func openHomes(dir string, uid int) (int, error) {
	fd, err := sys.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOENT) {
		return -1, err // no homes yet (List, Remove)
	}
	if err != nil {
		return -1, &policy.RefusedError{Subject: dir, Why: "the homes directory cannot be opened without following a symlink: " + err.Error(),
			Instead: "make it a real directory of yours (mode 700)"}
	}
	if err := checkOwned(fd, dir, uid, "the homes directory"); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openHome opens the home name in dfd, making it first when create is
// set. A symlink, or anything but a directory, refuses: acbox made the
// home a directory, so something else put that there.
func openHome(dfd int, name, path string, uid int, create bool) (int, error) {
	if create {
		if err := sys.Mkdirat(dfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("%w: making the home: %w", policy.ErrCannotSandbox, err)
		}
	}
	fd, err := sys.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
		return -1, &policy.RefusedError{Subject: path, Why: "is not a directory acbox made (a symlink or another file stands there)",
			Instead: "look at what put it there, then remove it (rm " + path + ")"}
	case err != nil:
		return -1, fmt.Errorf("%w: opening the home: %w", policy.ErrCannotSandbox, err)
	}
	if err := checkOwned(fd, path, uid, "the home"); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}

// checkOwned requires a directory owned by uid that its group and others
// cannot reach: what acbox made. A home the member opened up (chmod 777
// inside the run) or whose owner was changed is refused, not repaired:
// someone else may have written there meanwhile.
func checkOwned(fd int, path string, uid int, what string) error {
	var st unix.Stat_t
	if err := sys.Fstat(fd, path, &st); err != nil {
		return fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	if int(st.Uid) != uid {
		return &policy.RefusedError{Subject: path, Why: fmt.Sprintf("%s is owned by uid %d, not by you (%d)", what, st.Uid, uid),
			Instead: "look at who changed it; remove it (acbox home rm, or rm -r) to start afresh"}
	}
	if st.Mode&0o077 != 0 {
		return &policy.RefusedError{Subject: path, Why: fmt.Sprintf("%s has mode %04o: its group or others may reach it", what, st.Mode&0o7777),
			Instead: "look at what may have been put there, then chmod 700 " + path}
	}
	return nil
}

// lock takes the home's lock without waiting and then requires that the
// name still stands for the locked directory (an `acbox home rm` may have
// removed it between the open and the lock).
func lock(fd, dfd int, name, path string) error {
	err := sys.Flock(fd, path, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return &policy.RefusedError{Subject: path, Why: "the home is in use by another run (one run per home at a time)",
			Instead: "wait for that run to end (acbox ps), or use another name"}
	}
	if err != nil {
		return fmt.Errorf("%w: locking the home: %w", policy.ErrCannotSandbox, err)
	}
	var a, b unix.Stat_t
	if sys.Fstat(fd, path, &a) != nil || sys.Fstatat(dfd, name, &b, unix.AT_SYMLINK_NOFOLLOW) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return &policy.RefusedError{Subject: path, Why: "the home was removed or replaced while it was being locked", Instead: "retry"}
	}
	return nil
}

// stampName is the file whose modification time says when the home was
// last used. Home names never start with a dot (policy.CheckHomeName), so
// it can be no home's name.
func stampName(name string) string { return ".used-" + name }

// stamp records that the home is used now. It is a record for `acbox home
// list`; failing to write it stops nothing.
func stamp(dfd int, name string) {
	fd, err := sys.Openat(dfd, stampName(name), unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	sys.Touch(fd)
	sys.Close(fd)
}
