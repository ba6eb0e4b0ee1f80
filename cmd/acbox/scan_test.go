package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator"
)

// TestExitScan: what appears in a write grant between two snapshots is
// reported by class; what was there before, and links that stay inside the
// grants, are not; nothing is followed.
func TestExitScan(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	w, r := filepath.Join(root, "w"), filepath.Join(root, "r")
	os.MkdirAll(filepath.Join(w, "sub"), 0o755)
	os.MkdirAll(r, 0o755)
	os.WriteFile(filepath.Join(w, "old-suid"), nil, 0o755)
	syscall.Chmod(filepath.Join(w, "old-suid"), 0o4755)
	os.Symlink("/etc", filepath.Join(w, "old-link"))
	p := &coordinator.Plan{Grants: []coordinator.Grant{{Path: w, Write: true}, {Path: r}}}
	before := scanGrants(p)

	os.WriteFile(filepath.Join(w, "sub", "suid"), nil, 0o755)
	syscall.Chmod(filepath.Join(w, "sub", "suid"), 0o6755)
	syscall.Mkfifo(filepath.Join(w, "fifo"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(w, "passwd"))
	os.Symlink("../r/x", filepath.Join(w, "sub", "to-read-grant"))
	os.Symlink("../../..", filepath.Join(w, "sub", "up"))
	os.Symlink(root, filepath.Join(w, "loop")) // never followed
	got := diff(before, scanGrants(p))
	want := &ExitScan{
		NewSetuid:       []string{filepath.Join(w, "sub", "suid")},
		NewDevices:      []string{},
		NewFifos:        []string{filepath.Join(w, "fifo")},
		OutsideSymlinks: []string{filepath.Join(w, "loop") + " -> " + root, filepath.Join(w, "passwd") + " -> /etc/passwd", filepath.Join(w, "sub", "up") + " -> ../../.."},
		GitRedirects:    []string{},
		Cap:             scanCap,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exit scan\n got %+v\nwant %+v", got, want)
	}
}

// TestExitScanWithoutReport: the one-walk scan (no --report) names what was
// made or made set-id during the run, not what was there before, and the
// findings are printed without --report.
func TestExitScanWithoutReport(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	old := filepath.Join(w, "old-suid")
	os.WriteFile(old, nil, 0o755)
	syscall.Chmod(old, 0o4755)
	// ctime is what the scan reads: age it past the one-second slack.
	time.Sleep(1100 * time.Millisecond)
	p := &coordinator.Plan{Grants: []coordinator.Grant{{Path: w, Write: true}}}
	hook, done := exitScanHook(nil, false)
	if err := hook(p); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w, "a", "b"), 0o755)
	made := filepath.Join(w, "a", "b", "id")
	os.WriteFile(made, nil, 0o755)
	syscall.Chmod(made, 0o2755)
	syscall.Mkfifo(filepath.Join(w, "fifo"), 0o644) // fifos need --report
	got := done()
	if !reflect.DeepEqual(got.NewSetuid, []string{made}) || len(got.NewFifos) != 0 {
		t.Errorf("one-walk scan: %+v, want only %s", got, made)
	}
	var b strings.Builder
	printFindings(&b, got)
	if !strings.Contains(b.String(), "set-id file appeared in a write grant: "+made) {
		t.Errorf("printed %q", b.String())
	}
}
