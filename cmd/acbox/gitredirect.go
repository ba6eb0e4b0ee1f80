package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// A git directory's hooks and config can be kept read-only by a mount, but
// a `commondir` file the member creates beside them sends git to another
// directory for both, one the member filled. The file does not exist at
// launch, so there is nothing to bind over; instead the launcher notes
// which protected git directories have none, and after the run moves any
// that appeared aside (commondir.acbox-quarantine-ID), says so on the
// member's standard error, and lists it in the report. Until the run ends
// a git command run outside in that repository follows the redirect; the
// ceiling is in docs/security.md.

// gitWatch is the protected git directories without a commondir at launch.
type gitWatch struct {
	id   string
	dirs []string
}

func watchGitRedirects(p *coordinator.Plan, id string) *gitWatch {
	w := &gitWatch{id: id}
	for _, d := range p.ProtectedGitDirs() {
		if !exists(d, "commondir") {
			w.dirs = append(w.dirs, d)
		}
	}
	return w
}

// quarantine moves aside each commondir that appeared, and returns where
// each one was. One it cannot move aside is an error: the launch fails
// rather than leave git redirected.
func (w *gitWatch) quarantine(errw io.Writer) ([]string, error) {
	var out []string
	var failed []string
	for _, d := range w.dirs {
		if !exists(d, "commondir") {
			continue
		}
		where := filepath.Join(d, "commondir")
		out = append(out, where)
		aside, err := moveAside(d)
		if err != nil {
			fmt.Fprintf(errw, "acbox: %s appeared during the run and could not be moved aside (%v): git run in this repository would take hooks and config from where it points; remove it before using git here\n", where, err)
			failed = append(failed, where)
			continue
		}
		fmt.Fprintf(errw, "acbox: %s appeared during the run (git would take hooks and config from where it points); moved to %s\n", where, aside)
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("%w: the member left git redirects that could not be moved aside: %s; remove them before using git there", coordinator.ErrCannotSandbox, strings.Join(failed, " "))
	}
	return out, nil
}

// openDir opens dir without following any symlink on the way.
func openDir(dir string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

// exists reports whether dir/name exists. A directory the member made
// unsearchable gets its owner's permissions back first: git outside would
// follow a redirect in it as soon as someone restored them.
func exists(dir, name string) bool {
	fd, err := openDir(dir)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == unix.EACCES {
		restoreOwner(fd)
		err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	return err == nil
}

// moveAside renames dir/commondir to a name the member cannot have
// guessed (it knew the sandbox id), giving the directory back its owner's
// write permission if the member took it away.
func moveAside(dir string) (string, error) {
	fd, err := openDir(dir)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	var lastErr error
	for try := 0; try < 4; try++ {
		aside := "commondir.acbox-quarantine-" + randomSuffix()
		err := unix.Renameat2(fd, "commondir", fd, aside, unix.RENAME_NOREPLACE)
		if err == nil {
			return aside, nil
		}
		lastErr = err
		if err == unix.EACCES {
			restoreOwner(fd)
		}
	}
	return "", lastErr
}

// restoreOwner gives the directory behind fd (opened O_PATH without
// following links) its owner's read, write and search permission, when
// this process owns it. chmod through /proc/self/fd reaches exactly that
// inode.
func restoreOwner(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Getuid() {
		unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", fd), st.Mode&0o7777|0o700)
	}
}

func randomSuffix() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
