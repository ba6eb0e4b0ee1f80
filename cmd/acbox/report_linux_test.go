package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestReportNameHoldsReport: whatever a process that can write the
// report's directory did to the name during the run, what is read at
// --report FILE afterwards is acbox's report, or the run fails (124)
// naming FILE. Before the name was checked, a file renamed over it kept
// the forgery and acbox exited 0 without a word.
func TestReportNameHoldsReport(t *testing.T) {
	forge := []byte(`{"exit_scan":{"git_redirects":[]}}`)
	cases := []struct {
		name    string
		member  func(t *testing.T, dir, file string)
		warned  bool
		failed  bool
		holdsIt bool
	}{
		{"untouched", func(*testing.T, string, string) {}, false, false, true},
		{"overwritten in place", func(t *testing.T, _, file string) { must(t, os.WriteFile(file, forge, 0o600)) }, false, false, true},
		{"renamed over", func(t *testing.T, dir, file string) {
			must(t, os.WriteFile(filepath.Join(dir, ".r"), forge, 0o644))
			must(t, os.Rename(filepath.Join(dir, ".r"), file))
		}, true, false, true},
		{"removed", func(t *testing.T, _, file string) { must(t, os.Remove(file)) }, true, false, true},
		{"replaced by a symlink", func(t *testing.T, dir, file string) {
			must(t, os.WriteFile(filepath.Join(dir, "other"), forge, 0o644))
			must(t, os.Remove(file))
			must(t, os.Symlink("other", file))
		}, true, false, true},
		{"replaced by a directory", func(t *testing.T, _, file string) {
			must(t, os.Remove(file))
			must(t, os.Mkdir(file, 0o755))
		}, false, true, false},
		{"directory moved and replaced", func(t *testing.T, dir, file string) {
			must(t, os.Rename(dir, dir+".moved"))
			must(t, os.Mkdir(dir, 0o755))
			must(t, os.WriteFile(file, forge, 0o644))
		}, false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			must(t, os.Mkdir(dir, 0o755))
			file := filepath.Join(dir, "report.json")
			r, err := openReport(file)
			if err != nil {
				t.Fatal(err)
			}
			c.member(t, dir, file)
			var errw bytes.Buffer
			err = r.write(&errw, &policy.Report{ID: "sandbox-1"}, nil)
			if got := errors.Is(err, policy.ErrUnchecked); got != c.failed {
				t.Fatalf("unchecked error = %v (%v), want %v", got, err, c.failed)
			}
			if c.failed && !strings.Contains(err.Error(), file) {
				t.Errorf("the error does not name %s: %s", file, err)
			}
			if got := strings.Contains(errw.String(), "was replaced or removed"); got != c.warned {
				t.Errorf("warning = %v, want %v: %q", got, c.warned, errw.String())
			}
			b, _ := os.ReadFile(file)
			if got := bytes.Contains(b, []byte(`"id": "sandbox-1"`)); got != c.holdsIt {
				t.Errorf("%s holds the report = %v, want %v: %q", file, got, c.holdsIt, b)
			}
			if fi, err := os.Lstat(file); c.holdsIt && (err != nil || !fi.Mode().IsRegular()) {
				t.Errorf("%s is not a regular file after the run", file)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*.acbox-*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestReportSymlinkNameNotReplaced: a name that was a symlink at the start
// (a caller's /dev/stdout, a link into another directory) is checked, not
// replaced: if it changed, the run fails.
func TestReportSymlinkNameNotReplaced(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	must(t, os.WriteFile(target, nil, 0o600))
	must(t, os.Symlink("target.json", link))
	r, err := openReport(link)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.Rename(target, filepath.Join(dir, "moved")))
	must(t, os.WriteFile(target, []byte("forged"), 0o644))
	var errw bytes.Buffer
	if err := r.write(&errw, &policy.Report{ID: "s"}, nil); !errors.Is(err, policy.ErrUnchecked) {
		t.Fatalf("err = %v, want an unchecked error", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
