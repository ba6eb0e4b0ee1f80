package policy

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// writable: this process's effective ids may create entries in dir.
func writable(dir string) bool {
	return sys.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS) == nil
}

// privateDir refuses a directory that is a symlink, not this user's, or
// open to others: the places file is written there, and in a shared /tmp
// another user could have made /tmp/acbox-UID first (with a symlink for
// the file inside).
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s must be a directory of yours closed to others (0700); fix or remove it, or set XDG_RUNTIME_DIR", dir)
	}
	return nil
}
