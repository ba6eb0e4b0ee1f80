package main

import (
	"fmt"
	"io"
	"path/filepath"

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
// each one was.
func (w *gitWatch) quarantine(errw io.Writer) []string {
	var out []string
	for _, d := range w.dirs {
		if !exists(d, "commondir") {
			continue
		}
		where := filepath.Join(d, "commondir")
		aside := "commondir.acbox-quarantine-" + w.id
		if err := moveAside(d, "commondir", aside); err != nil {
			fmt.Fprintf(errw, "acbox: %s appeared during the run and could not be moved aside (%v): git run in this repository would take hooks and config from where it points; remove it before using git here\n", where, err)
		} else {
			fmt.Fprintf(errw, "acbox: %s appeared during the run (git would take hooks and config from where it points); moved to %s\n", where, aside)
		}
		out = append(out, where)
	}
	return out
}

// openDir opens dir without following any symlink on the way.
func openDir(dir string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

func exists(dir, name string) bool {
	fd, err := openDir(dir)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

func moveAside(dir, name, aside string) error {
	fd, err := openDir(dir)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Renameat2(fd, name, fd, aside, unix.RENAME_NOREPLACE)
}
