package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// settle makes sure that what the caller reads at --report FILE after the
// run is the report acbox wrote: a member that can write FILE's directory
// may rename its own file over the name (or remove it) while the report
// goes into the descriptor opened at the start. If FILE no longer leads to
// that file, the report b is written again: into a new file created in the
// directory opened at the start, renamed over the name, and the name is
// checked once more. A name acbox cannot make hold its report is an
// ErrUnchecked error (exit 124) naming FILE. A name that was a symlink at
// the start, or a file that is not a regular one (a pipe, /dev/stdout), is
// never replaced: it is checked and the run fails if it changed.
func (r *reportFile) settle(errw io.Writer, b []byte) error {
	want, err := r.f.Stat()
	if err != nil {
		return r.unchecked("the report's file cannot be examined", err)
	}
	if leadsTo(r.path, want) {
		return nil
	}
	if r.link || !want.Mode().IsRegular() {
		return r.unchecked("the name was a symlink or not a regular file at the start, so acbox does not replace it", nil)
	}
	got, err := r.rewrite(b, want.Mode().Perm())
	if err != nil {
		return r.unchecked("writing the report again under the name failed", err)
	}
	if !leadsTo(r.path, got) {
		return r.unchecked("the report was written again in the directory opened at the start, but the path leads elsewhere (a directory on it was moved or replaced)", nil)
	}
	fmt.Fprintf(errw, "acbox: warning: --report %s was replaced or removed during the run (by the member, or another process that can write its directory); acbox wrote its report again under that name, and what the name held is gone\n", r.path)
	return nil
}

// leadsTo says whether path, resolved now, is the file fi describes.
func leadsTo(path string, fi fs.FileInfo) bool {
	now, err := os.Stat(path)
	return err == nil && os.SameFile(now, fi)
}

// rewrite writes b into a new file in the directory opened at the start
// (created exclusively, never through a link) and renames it over the
// report's name there; it returns the new file's identity.
func (r *reportFile) rewrite(b []byte, perm fs.FileMode) (fs.FileInfo, error) {
	dfd, base := int(r.dir.Fd()), filepath.Base(r.path)
	f, tmp, err := createIn(dfd, base)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err = f.Write(b); err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, base)
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return nil, err
	}
	return f.Stat()
}

// createIn creates a new file beside base in the directory dfd, with a
// random name that no one can have made beforehand.
func createIn(dfd int, base string) (*os.File, string, error) {
	for range 8 {
		var rnd [8]byte
		rand.Read(rnd[:])
		tmp := "." + base + ".acbox-" + hex.EncodeToString(rnd[:])
		if len(tmp) > 255 {
			tmp = ".acbox-report-" + hex.EncodeToString(rnd[:])
		}
		fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return os.NewFile(uintptr(fd), tmp), tmp, nil
	}
	return nil, "", unix.EEXIST
}

// unchecked is the error of a report name acbox could not make hold its
// report.
func (r *reportFile) unchecked(why string, err error) error {
	if err != nil {
		why += " (" + cause(err).Error() + ")"
	}
	return fmt.Errorf("%w: --report %s no longer leads to acbox's report: it was replaced or removed during the run (by the member, or another process that can write its directory) and %s; do not trust what %s holds", policy.ErrUnchecked, r.path, why, r.path)
}

// openDir opens the directory a report's name is in, to create and rename
// in it after the run whatever its path leads to by then.
func openDir(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_CLOEXEC|dirOpenFlag, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}
