package nsjail

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// typeless lists the directory with getdents but gives every entry as
// DT_UNKNOWN, as ext2 without the filetype feature (or some FUSE and
// network file systems) do, and adds extra names that do not exist.
func typeless(extra ...string) lister {
	return func(fd int, path string, fn func([]byte, uint8) bool) error {
		for _, n := range extra {
			if !fn([]byte(n), unix.DT_UNKNOWN) {
				return nil
			}
		}
		return getdents(fd, path, func(name []byte, _ uint8) bool { return fn(name, unix.DT_UNKNOWN) })
	}
}

// A listing without types: each entry's kind is looked at relative to the
// directory's descriptor, never by the view's path (here a decoy whose
// names are of other kinds, as a child view's path can lead into its
// parent's half-built snapshot); a name gone is left out, a hidden one
// stays hidden, and a name the plan makes a view is still known.
func TestListEntriesWithoutTypes(t *testing.T) {
	dir, decoy := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), nil, 0o644)
	os.Symlink("f", filepath.Join(dir, "l"))
	os.WriteFile(filepath.Join(decoy, "d"), nil, 0o644)
	os.Mkdir(filepath.Join(decoy, "f"), 0o755)
	os.Mkdir(filepath.Join(decoy, "gone"), 0o755)
	under, err := sys.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close(under)
	v := policy.ViewDir{Path: decoy, Hide: []string{"secret"}}
	ents, err := listEntries(under, v, func(name string) bool { return name == "d" }, typeless("gone"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]entry{}
	for _, e := range ents {
		got[e.name] = e
	}
	var d unix.Stat_t
	unix.Lstat(filepath.Join(dir, "d"), &d)
	want := map[string]entry{
		"d": {name: "d", kind: unix.S_IFDIR, known: true, dev: d.Dev, ino: d.Ino, mode: d.Mode},
		"f": {name: "f", kind: unix.S_IFREG},
		"l": {name: "l", kind: unix.S_IFLNK, target: "f"},
	}
	if len(got) != len(want) {
		t.Errorf("listed %d entries %v, want %v", len(got), got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
}

// On a real file system that gives no types (ext2 without filetype, on a
// loop device: root only), a child view's snapshot shows every entry of
// its host directory, though its path, by then, leads into the parent's
// snapshot, where it is an empty placeholder.
func TestChildViewOnTypelessFS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a loop device)")
	}
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("needs mkfs.ext4 (e2fsprogs) to make a file system without d_type")
	}
	src, mnt := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(src, "sub", "inner"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "f"), []byte("x"), 0o644)
	os.Symlink("f", filepath.Join(src, "sub", "l"))
	img := filepath.Join(t.TempDir(), "img")
	if out, err := exec.Command("mkfs.ext4", "-q", "-t", "ext2", "-O", "^filetype,^dir_index", "-d", src, img, "2M").CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4 without filetype: %v: %s", err, out)
	}
	var names []string
	var buildErr error
	skip := ""
	inPrivateNS(t, func() {
		// mount runs on this thread, so in its namespace; the loop
		// device is released (autoclear) when the namespace goes.
		if out, err := exec.Command("mount", "-o", "loop,ro", img, mnt).CombinedOutput(); err != nil {
			skip = fmt.Sprintf("mount -o loop: %v: %s", err, out)
			return
		}
		defer unix.Unmount(mnt, unix.MNT_DETACH)
		if typed(mnt) {
			skip = "the image gives entry types: not the case tested"
			return
		}
		parent, child := viewAt(mnt), viewAt(filepath.Join(mnt, "sub"))
		r := &rootfs{cfg: &helperConfig{Plan: &policy.Plan{Views: []policy.ViewDir{parent, child}}}}
		under, err := openNoFollow(unix.AT_FDCWD, mnt, true, false)
		if err != nil {
			buildErr = err
			return
		}
		buildErr = r.snapshot(parent, under, under)
		sys.Close(under)
		ents, _ := os.ReadDir(filepath.Join(mnt, "sub"))
		for _, e := range ents {
			names = append(names, e.Name())
		}
	})
	if skip != "" {
		t.Skip(skip)
	}
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	if want := []string{"f", "inner", "l"}; !slices.Equal(names, want) {
		t.Errorf("the child view shows %q, want %q", names, want)
	}
}

// viewAt is a view of the directory at path, as the coordinator plans it.
func viewAt(path string) policy.ViewDir {
	var st unix.Stat_t
	unix.Stat(path, &st)
	return policy.ViewDir{Path: path, Dev: st.Dev, Ino: st.Ino}
}

// typed: getdents gives the type of some entry of dir.
func typed(dir string) bool {
	fd, err := sys.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer sys.Close(fd)
	some := false
	getdents(fd, dir, func(_ []byte, typ uint8) bool { some = typ != unix.DT_UNKNOWN; return !some })
	return some
}
