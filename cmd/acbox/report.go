package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
)

// reportFile is --report's file, opened before the member starts: a path
// that cannot be written (no such directory, a directory, no permission)
// is refused before anything runs, not found out after the member's work
// is done. Holding the descriptor means that the report lands in the file
// checked; holding its directory too means that, if a member with a write
// grant over that directory replaced or removed the name meanwhile, acbox
// can see it and put the report back under the name (report_name.go).
type reportFile struct {
	f       *os.File
	dir     *os.File // the directory the name is in, opened with f
	path    string
	created bool // removed again if no report is written
	link    bool // the name was a symlink at the start: never replaced
}

// openReport opens path for the report; nil without --report.
func openReport(path string) (*reportFile, error) {
	if path == "" {
		return nil, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, policy.Invalid("--report %s is a directory: name a file", path)
	}
	dir, err := openDir(filepath.Dir(path))
	if err != nil {
		return nil, policy.Invalid("--report %s cannot be written (its directory: %v): name a file in an existing directory you can write", path, cause(err))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	}
	if err != nil {
		dir.Close()
		return nil, policy.Invalid("--report %s cannot be written (%v): name a file in an existing directory you can write", path, cause(err))
	}
	fi, err := os.Lstat(path)
	return &reportFile{f: f, dir: dir, path: path, created: created, link: err == nil && fi.Mode()&fs.ModeSymlink != 0}, nil
}

// write writes the report, with the exit scan when there is one, closes
// the file and then makes sure the name holds it (settle). A write that
// fails (a full disk) is named on errw and the command's status kept; a
// name that does not hold acbox's report afterwards and cannot be made to
// is an ErrUnchecked error (exit 124). A nested launch passes on the
// broker's JSON of the scan as it came.
func (r *reportFile) write(errw io.Writer, rep *policy.Report, scan json.RawMessage) error {
	if r == nil || rep == nil {
		return nil
	}
	defer r.f.Close()
	defer r.dir.Close()
	b, _ := json.MarshalIndent(struct {
		*policy.Report
		ExitScan json.RawMessage `json:"exit_scan,omitempty"`
	}{rep, scan}, "", "  ")
	b = append(b, '\n')
	r.created = false
	lateReport(errw, r.path, r.writeAt(b))
	return r.settle(errw, b)
}

// writeAt writes b over the file's content from the start.
func (r *reportFile) writeAt(b []byte) error {
	if fi, err := r.f.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := r.f.Truncate(0); err != nil {
			return err
		}
	}
	_, err := r.f.Write(b)
	return err
}

// close ends a report that was not written: a file acbox created for it
// is removed again, so a refused launch leaves nothing behind.
func (r *reportFile) close() {
	if r == nil {
		return
	}
	defer r.f.Close()
	defer r.dir.Close()
	if r.created {
		r.removeCreated()
	}
}

// removeCreated unlinks the file acbox created, through the directory
// opened with it and only while the name still leads to that file: a
// member that swapped a directory above it for a symlink cannot make acbox
// unlink a name elsewhere.
func (r *reportFile) removeCreated() {
	fi, err := r.f.Stat()
	if err != nil {
		return
	}
	base := filepath.Base(r.f.Name())
	var st unix.Stat_t
	if unix.Fstatat(int(r.dir.Fd()), base, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	if own, ok := fi.Sys().(*syscall.Stat_t); ok && own.Dev == st.Dev && own.Ino == st.Ino {
		unix.Unlinkat(int(r.dir.Fd()), base, 0)
	}
}

// lateReport says on stderr that the report could not be written after
// the run. The member's own status is kept: it ran, and its status is the
// result a caller waits for; a report that failed this late is named
// rather than allowed to replace that status.
func lateReport(errw io.Writer, path string, err error) {
	if err != nil {
		fmt.Fprintf(errw, "acbox: --report %s: writing the report failed after the run: %v (the exit status is the command's own)\n", path, err)
	}
}

// cause is an error without its operation and path (the message names
// them already).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// scanJSON is the exit scan as the report's exit_scan (nil: none).
func scanJSON(es *exitscan.ExitScan) json.RawMessage {
	if es == nil {
		return nil
	}
	b, _ := json.Marshal(es)
	return b
}
