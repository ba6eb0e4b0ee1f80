package nsjail

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// inPrivateNS runs fn on a thread of its own in a private mount namespace,
// as pid 1 builds views (root only). The thread is never unlocked, so it
// dies with its namespace. fn must not call tb.Fatal (another goroutine).
func inPrivateNS(tb testing.TB, fn func()) {
	if os.Geteuid() != 0 {
		tb.Skip("needs root (a private mount namespace)")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			tb.Error(err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			tb.Error(err)
			return
		}
		fn()
	}()
	<-done
}

// A root caller's snapshot shows each entry the listing found that is not
// hidden by name or by the root-only rule (judged on the clone's mode, the
// listing no longer stats plain entries), as the host's very file, and
// symlinks as they are; its record counts what it shows.
func TestSnapshotJudgesEntriesByTheirClone(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"plain": 0o644, "plain2": 0o644, "key": 0o600, "keep": 0o600, "secret": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, name), mode) // past the umask
	}
	for name, mode := range map[string]os.FileMode{"pub": 0o755, "priv": 0o700} {
		if err := os.Mkdir(filepath.Join(dir, name), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, name), mode)
	}
	if err := os.Symlink("plain", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var st, plain unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	if err := unix.Stat(filepath.Join(dir, "plain"), &plain); err != nil {
		t.Fatal(err)
	}
	v := policy.ViewDir{Path: dir, Dev: st.Dev, Ino: st.Ino, Hide: []string{"secret"}, HideRoot: true, KeepRoot: []string{"keep"}}
	r := &rootfs{cfg: &helperConfig{Plan: &policy.Plan{Views: []policy.ViewDir{v}}}}
	var names []string
	var shown unix.Stat_t
	var target string
	var buildErr, statErr error
	inPrivateNS(t, func() {
		under, err := openNoFollow(unix.AT_FDCWD, dir, true, false)
		if err != nil {
			buildErr = err
			return
		}
		buildErr = r.snapshot(v, under, under)
		sys.Close(under)
		if buildErr != nil {
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		statErr = unix.Stat(filepath.Join(dir, "plain"), &shown)
		target, _ = os.Readlink(filepath.Join(dir, "link"))
	})
	if buildErr != nil || statErr != nil {
		t.Fatalf("snapshot: %v; stat: %v", buildErr, statErr)
	}
	if want := []string{"keep", "link", "plain", "plain2", "pub"}; !slices.Equal(names, want) {
		t.Errorf("the snapshot shows %q, want %q", names, want)
	}
	if shown.Dev != plain.Dev || shown.Ino != plain.Ino {
		t.Errorf("plain is %d/%d in the snapshot, the host's is %d/%d", shown.Dev, shown.Ino, plain.Dev, plain.Ino)
	}
	if target != "plain" {
		t.Errorf("link points to %q, want plain", target)
	}
	if len(r.records) != 1 || !strings.Contains(r.records[0].Flags, "entries=5,") {
		t.Errorf("records %+v, want one view of 5 entries", r.records)
	}
}
