package homes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// homesDir is a fresh homes directory's path (not yet made) in a
// canonical temporary directory.
func homesDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "state", "homes")
}

func home(dir, name string) *policy.PersistedHome {
	return &policy.PersistedHome{Name: name, Path: filepath.Join(dir, name)}
}

func mustRefuse(t *testing.T, err error, want string) {
	t.Helper()
	if !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal saying %q", err, want)
	}
}

// TestAcquire: the first run makes the homes directory and the home, both
// 0700; a second run with the same home is refused while the first holds
// it, and takes it once the first has released it.
func TestAcquire(t *testing.T) {
	dir := homesDir(t)
	h := home(dir, "go")
	release, err := Acquire(h, os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, h.Path} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a directory 0700", p, fi.Mode(), err)
		}
	}
	_, err = Acquire(h, os.Getuid())
	mustRefuse(t, err, "in use by another run")
	if _, err := Acquire(home(dir, "other"), os.Getuid()); err != nil {
		t.Fatalf("another home: %v", err)
	}
	release()
	again, err := Acquire(h, os.Getuid())
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
	if _, err := os.Lstat(filepath.Join(dir, stampName("go"))); err != nil {
		t.Fatalf("last-used record: %v", err)
	}
}

// TestAcquireRefusesPlanted: a symlink or a file planted as the home, a
// home opened to others, one owned by someone else, and a homes directory
// that is a symlink are refused, and nothing is written through the link.
func TestAcquireRefusesPlanted(t *testing.T) {
	dir := homesDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	os.Symlink(victim, filepath.Join(dir, "link"))
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	os.Mkdir(filepath.Join(dir, "open"), 0o700)
	os.Chmod(filepath.Join(dir, "open"), 0o755)
	for name, want := range map[string]string{"link": "not a directory acbox made", "file": "not a directory acbox made", "open": "mode 0755"} {
		_, err := Acquire(home(dir, name), os.Getuid())
		mustRefuse(t, err, want)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Fatalf("written through the link: %v", ents)
	}
	if os.Getuid() == 0 {
		os.Mkdir(filepath.Join(dir, "theirs"), 0o700)
		os.Chown(filepath.Join(dir, "theirs"), 65534, 65534)
		_, err := Acquire(home(dir, "theirs"), 0)
		mustRefuse(t, err, "owned by uid 65534")
	}
	linked := filepath.Join(filepath.Dir(dir), "linked")
	os.Symlink(dir, linked)
	_, err := Acquire(&policy.PersistedHome{Name: "x", Path: filepath.Join(linked, "x")}, os.Getuid())
	mustRefuse(t, err, "without following a symlink")
}

// TestQuota: a home past either bound is refused with the remedy; one
// within both is not.
func TestQuota(t *testing.T) {
	dir := homesDir(t)
	h := home(dir, "big")
	release, err := Acquire(h, os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	os.WriteFile(filepath.Join(h.Path, "a"), make([]byte, 64<<10), 0o600)
	os.MkdirAll(filepath.Join(h.Path, "d", "e"), 0o700)
	os.Chmod(filepath.Join(h.Path, "d"), 0) // hidden from the owner: still counted
	fd, err := unix.Open(h.Path, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	u, err := measure(fd)
	if err != nil || u.Entries != 3 || u.Bytes < 64<<10 {
		t.Fatalf("measure: %+v %v, want 3 entries and at least 64KiB", u, err)
	}
	mustRefuse(t, checkQuotaTo(fd, h, Usage{Bytes: 1 << 30, Entries: 2}), "acbox home rm big")
	mustRefuse(t, checkQuotaTo(fd, h, Usage{Bytes: 4 << 10, Entries: 100}), "more than its quota")
	if err := checkQuotaTo(fd, h, Usage{Bytes: 1 << 30, Entries: 3}); err != nil {
		t.Fatal(err)
	}
}

// TestRemove: rm empties and removes a home the member made hard to
// remove (a directory without permissions), removes a planted link
// without touching its target, and refuses a home in use.
func TestRemove(t *testing.T) {
	dir := homesDir(t)
	h := home(dir, "cache")
	release, err := Acquire(h, os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	os.WriteFile(filepath.Join(victim, "keep"), nil, 0o600)
	os.MkdirAll(filepath.Join(h.Path, "a", "b"), 0o700)
	os.Symlink(victim, filepath.Join(h.Path, "a", "out"))
	os.Chmod(filepath.Join(h.Path, "a"), 0o100)
	mustRefuse(t, Remove(dir, "cache", os.Getuid()), "in use")
	release()
	list, err := List(dir, os.Getuid())
	if err != nil || len(list) != 1 || list[0].Name != "cache" || list[0].LastUsed.IsZero() {
		t.Fatalf("List: %+v %v", list, err)
	}
	if err := Remove(dir, "cache", os.Getuid()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(h.Path); !os.IsNotExist(err) {
		t.Fatalf("home still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("followed the link: %v", err)
	}
	os.Symlink(victim, filepath.Join(dir, "planted"))
	if err := Remove(dir, "planted", os.Getuid()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("followed the planted link: %v", err)
	}
	mustRefuse(t, Remove(dir, "cache", os.Getuid()), "no such home")
	if err := Remove(dir, "../x", os.Getuid()); !errors.Is(err, policy.ErrInvalid) {
		t.Fatalf("bad name: %v", err)
	}
}

// TestRemoveDeep: a member can make a chain of directories deeper than any
// walk bound (cd d; mkdir d, over and over). The run after it is refused
// with the remedy "acbox home rm NAME", so rm must remove it however deep
// it goes; it failed with "deeper than 1000 levels".
func TestRemoveDeep(t *testing.T) {
	dir := homesDir(t)
	release, err := Acquire(home(dir, "deep"), os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	release()
	fd, err := unix.Open(filepath.Join(dir, "deep"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2*maxDepth+5; i++ { // two passes' worth and some
		if err := unix.Mkdirat(fd, "d", 0o700); err != nil {
			t.Fatal(err)
		}
		if i%700 == 0 {
			if err := unix.Mkdirat(fd, ".acbox-rm-1", 0o700); err != nil { // a name rm may want for itself
				t.Fatal(err)
			}
		}
		sub, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = sub
	}
	unix.Close(fd)
	if err := Remove(dir, "deep", os.Getuid()); err != nil {
		t.Fatalf("rm of a deep home: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "deep")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the home is still there: %v", err)
	}
}
