package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
)

// reportFile is --report's file, opened before the member starts: a path
// that cannot be written (no such directory, a directory, no permission)
// is refused before anything runs, not found out after the member's work
// is done. Holding the descriptor also means that the report lands in the
// file checked, even if a member with a write grant over its directory
// replaces the name meanwhile.
type reportFile struct {
	f       *os.File
	created bool // removed again if no report is written
}

// openReport opens path for the report; nil without --report.
func openReport(path string) (*reportFile, error) {
	if path == "" {
		return nil, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, policy.Invalid("--report %s is a directory: name a file", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	}
	if err != nil {
		return nil, policy.Invalid("--report %s cannot be written (%v): name a file in an existing directory you can write", path, cause(err))
	}
	return &reportFile{f: f, created: created}, nil
}

// write writes the report, with the exit scan when there is one, and
// closes the file. A nested launch passes on the broker's JSON of the scan
// as it came.
func (r *reportFile) write(rep *policy.Report, scan json.RawMessage) error {
	if r == nil || rep == nil {
		return nil
	}
	defer r.f.Close()
	b, _ := json.MarshalIndent(struct {
		*policy.Report
		ExitScan json.RawMessage `json:"exit_scan,omitempty"`
	}{rep, scan}, "", "  ")
	if fi, err := r.f.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := r.f.Truncate(0); err != nil {
			return err
		}
	}
	_, err := r.f.Write(append(b, '\n'))
	r.created = false
	return err
}

// close ends a report that was not written: a file acbox created for it
// is removed again, so a refused launch leaves nothing behind.
func (r *reportFile) close() {
	if r == nil {
		return
	}
	r.f.Close()
	if r.created {
		os.Remove(r.f.Name())
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
