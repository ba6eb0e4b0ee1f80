package exitscan

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExitScanFilecaps: a file that carries file capabilities in a write
// grant before the launch and is rewritten through a shared mapping (the
// kernel keeps security.capability there, as it keeps set-id bits), given
// a hard link, or renamed during the run loses its capabilities after the
// run, with and without --report, and is named; one the member did not
// touch keeps them. Writing security.capability takes CAP_SETFCAP: root
// only.
func TestExitScanFilecaps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file capabilities (security.capability) takes CAP_SETFCAP: run as root")
	}
	for _, full := range []bool{false, true} {
		w, _ := filepath.EvalSymlinks(t.TempDir())
		os.MkdirAll(filepath.Join(w, "a"), 0o755)
		mapped, linked, moved, both, old := filepath.Join(w, "mapped"), filepath.Join(w, "linked"),
			filepath.Join(w, "a", "moved"), filepath.Join(w, "both"), filepath.Join(w, "old")
		for _, f := range []string{mapped, linked, moved, both, old} {
			os.WriteFile(f, make([]byte, 4096), 0o755)
			setCaps(t, f)
		}
		syscall.Chmod(both, 0o4755)
		age(t)
		s := Begin(&policy.Plan{Grants: []policy.Grant{{Path: w, Write: true}}}, full)
		writeMapped(t, mapped, "#!/bin/sh\necho pwned\n")
		writeMapped(t, both, "#!/bin/sh\necho pwned\n")
		if !hasCaps(t, mapped) || !hasCaps(t, both) {
			t.Fatal("the kernel dropped the capabilities of a file written through a mapping: the attack is not real here")
		}
		link, renamed := filepath.Join(w, "link"), filepath.Join(w, "renamed")
		if err := errors.Join(os.Link(linked, link), os.Rename(moved, renamed)); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		got, err := s.Finish(&b)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{mapped, linked, link, renamed, both}; !sameSet(got.FilecapsCleared, want) {
			t.Errorf("full=%v: caps cleared %v, want %v; printed %q", full, got.FilecapsCleared, want, b.String())
		}
		for _, f := range []string{mapped, linked, link, renamed, both} {
			if hasCaps(t, f) {
				t.Errorf("full=%v: %s kept its file capabilities", full, f)
			}
		}
		wantMode(t, both, 0o755)
		if !hasCaps(t, old) {
			t.Errorf("full=%v: %s lost its capabilities, but the member did not touch it", full, old)
		}
		if !strings.Contains(b.String(), "a file with file capabilities appeared or changed in a write grant during the run: "+
			mapped+"; acbox removed its capabilities") {
			t.Errorf("printed %q", b.String())
		}
	}
}

// TestExitScanFilecapsAsUser: acbox run by a user cannot remove
// security.capability (that takes CAP_SETFCAP), so the scan chowns a file
// the user owns to its own owner, which drops them; one the user does not
// own is named as not checked and the run exits 124. The scan runs in a
// subprocess as nobody (TestExitScanFilecapsChild).
func TestExitScanFilecapsAsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("setting up files with capabilities for another user takes root")
	}
	dir, err := os.MkdirTemp("", "acbox-exitscan") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	dir, _ = filepath.EvalSymlinks(dir)
	own, foreign := filepath.Join(dir, "own"), filepath.Join(dir, "foreign")
	for _, f := range []string{own, foreign} {
		os.WriteFile(f, make([]byte, 4096), 0o755)
		os.Chmod(f, 0o777) // nobody may write it through a mapping, as a member could
		setCaps(t, f)
	}
	os.Chown(own, 65534, 65534)
	setCaps(t, own) // chown dropped them
	exe := copyTestBinary(t, dir)
	cmd := exec.Command(exe, "-test.run=^TestExitScanFilecapsChild$", "-test.v", "-test.count=1")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/", "ACBOX_TEST_CAPS_DIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if hasCaps(t, own) {
		t.Errorf("%s kept its file capabilities", own)
	}
	if !hasCaps(t, foreign) {
		t.Errorf("%s lost its capabilities, which nobody may not remove: the test did not test that", foreign)
	}
}

// TestExitScanFilecapsChild is TestExitScanFilecapsAsUser's subprocess.
func TestExitScanFilecapsChild(t *testing.T) {
	dir := os.Getenv("ACBOX_TEST_CAPS_DIR")
	if dir == "" {
		t.Skip("run by TestExitScanFilecapsAsUser")
	}
	age(t)
	own, foreign := filepath.Join(dir, "own"), filepath.Join(dir, "foreign")
	s := Begin(&policy.Plan{Grants: []policy.Grant{{Path: dir, Write: true}}}, false)
	writeMapped(t, own, "#!/bin/sh\necho pwned\n")
	writeMapped(t, foreign, "#!/bin/sh\necho pwned\n")
	var b strings.Builder
	got, err := s.Finish(&b)
	if !errors.Is(err, policy.ErrUnchecked) || policy.ExitCode(err) != 124 {
		t.Fatalf("err %v, want ErrUnchecked (124); printed %q", err, b.String())
	}
	if !sameSet(got.FilecapsCleared, []string{own}) {
		t.Errorf("caps cleared %v, want %s", got.FilecapsCleared, own)
	}
	if len(got.Unchecked) != 1 || !strings.HasPrefix(got.Unchecked[0], foreign+": a file with file capabilities") ||
		!strings.Contains(got.Unchecked[0], "belongs to uid 0") {
		t.Errorf("unchecked %q", got.Unchecked)
	}
}

// setCaps gives path cap_net_bind_service=ep (a VFS_CAP_REVISION_2
// security.capability, as setcap(8) writes it).
func setCaps(t *testing.T, path string) {
	t.Helper()
	v := make([]byte, 20)
	binary.LittleEndian.PutUint32(v[0:], 0x02000000|1) // revision 2, effective
	binary.LittleEndian.PutUint32(v[4:], 1<<unix.CAP_NET_BIND_SERVICE)
	if err := unix.Setxattr(path, capsXattr, v, 0); err != nil {
		t.Fatalf("setcap %s: %v", path, err)
	}
}

func hasCaps(t *testing.T, path string) bool {
	t.Helper()
	_, err := unix.Lgetxattr(path, capsXattr, nil)
	if err != nil && !errors.Is(err, unix.ENODATA) {
		t.Fatalf("getcap %s: %v", path, err)
	}
	return err == nil
}

// copyTestBinary copies this test binary into dir, where another user
// can run it (the build cache may not be readable to it).
func copyTestBinary(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "exitscan.test")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestHasCapsBothWays: getxattrat and its fallback (lgetxattr through
// /proc/self/fd) agree on a file with capabilities, one without, and a
// symlink (never followed) to the first; each answers on its own.
func TestHasCapsBothWays(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file capabilities (security.capability) takes CAP_SETFCAP: run as root")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plain"), nil, 0o755)
	os.WriteFile(filepath.Join(dir, "capped"), nil, 0o755)
	setCaps(t, filepath.Join(dir, "capped"))
	os.Symlink("capped", filepath.Join(dir, "link"))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, fallback := range []bool{false, true} {
		w := &walker{noXattrat: fallback}
		for name, want := range map[string]bool{"plain": false, "capped": true, "link": false} {
			if got, err := w.hasCaps(fd, name); err != nil || got != want {
				t.Errorf("fallback=%v %s: %v, %v; want %v", fallback, name, got, err, want)
			}
		}
		if w.noXattrat != fallback {
			t.Logf("getxattrat is missing here: only the fallback was tested")
		}
	}
}
