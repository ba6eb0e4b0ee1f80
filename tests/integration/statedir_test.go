//go:build integration

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestStateDirWithoutHome: a uid without a usable home (no passwd entry
// and HOME unset, or HOME=/nonexistent), as CI containers run, keeps its
// state in a private /tmp/acbox-UID (0700, its own) and runs; a
// /tmp/acbox-UID that another user made first is refused, naming
// XDG_RUNTIME_DIR, and nothing runs.
func TestStateDirWithoutHome(t *testing.T) {
	if setupErr != "" {
		t.Skip(setupErr)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run acbox as a uid without a passwd entry")
	}
	for _, tc := range []struct {
		name string
		uid  int
		env  []string
	}{
		{"no passwd entry, HOME unset", 54321, nil},
		{"HOME=/nonexistent", 54323, []string{"HOME=/nonexistent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(os.TempDir(), "acbox-"+strconv.Itoa(tc.uid))
			os.RemoveAll(dir)
			t.Cleanup(func() { os.RemoveAll(dir) })
			out, errb, code := runAsUID(t, tc.uid, tc.env, "run", "--", "sh", "-c", "echo RAN")
			if code != 0 || out != "RAN\n" {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errb)
			}
			fi, err := os.Lstat(dir)
			if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != uint32(tc.uid) {
				t.Errorf("state directory %s: %v %v; want a 0700 directory of uid %d", dir, fi, err, tc.uid)
			}
		})
	}
	t.Run("taken by another user", func(t *testing.T) {
		dir := filepath.Join(os.TempDir(), "acbox-54322")
		os.RemoveAll(dir)
		if err := os.Mkdir(dir, 0o755); err != nil { // root's, not the uid's
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		out, errb, code := runAsUID(t, 54322, nil, "run", "--", "sh", "-c", "echo RAN")
		if code == 0 || strings.Contains(out, "RAN") || !strings.Contains(errb, dir) || !strings.Contains(errb, "XDG_RUNTIME_DIR") {
			t.Errorf("exit %d, stdout %q, stderr %s; want a refusal naming %s and XDG_RUNTIME_DIR", code, out, errb, dir)
		}
	})
}

// runAsUID runs acbox as uid (group the same, no supplementary groups)
// from /, with PATH and env only.
func runAsUID(t *testing.T, uid int, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(acboxBin, args...)
	cmd.Dir = "/"
	cmd.Env = append([]string{"PATH=" + hostPath}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), NoSetGroups: true}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}
