package nsjail

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestProcMasked: verifyProcMasks accepts only the read-only mask of the
// entry's kind.
func TestProcMasked(t *testing.T) {
	null := unix.Stat_t{Mode: unix.S_IFCHR | 0o666, Rdev: unix.Mkdev(1, 3)}
	zero := unix.Stat_t{Mode: unix.S_IFCHR | 0o666, Rdev: unix.Mkdev(1, 5)}
	procFile := unix.Stat_t{Mode: unix.S_IFREG | 0o400}
	dir := unix.Stat_t{Mode: unix.S_IFDIR}
	ro := func(typ int64) unix.Statfs_t { return unix.Statfs_t{Type: typ, Flags: unix.ST_RDONLY} }
	rw := func(typ int64) unix.Statfs_t { return unix.Statfs_t{Type: typ} }
	for _, c := range []struct {
		name string
		st   unix.Stat_t
		fs   unix.Statfs_t
		dir  bool
		want bool
	}{
		{"/dev/null read-only", null, ro(unix.TMPFS_MAGIC), false, true},
		{"/dev/null writable mount", null, rw(unix.TMPFS_MAGIC), false, false},
		{"another device", zero, ro(unix.TMPFS_MAGIC), false, false},
		{"the proc file itself", procFile, ro(unix.PROC_SUPER_MAGIC), false, false},
		{"tmpfs read-only", dir, ro(unix.TMPFS_MAGIC), true, true},
		{"tmpfs writable", dir, rw(unix.TMPFS_MAGIC), true, false},
		{"the proc directory itself", dir, ro(unix.PROC_SUPER_MAGIC), true, false},
		{"a file where a directory is masked", null, ro(unix.TMPFS_MAGIC), true, false},
	} {
		if got := procMasked(c.st, c.fs, c.dir); got != c.want {
			t.Errorf("%s: procMasked = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestProcSysVerifiedReadOnly: /proc/sys is among the directories pid 1
// binds read-only and checks before pivot_root, and the check refuses a
// /proc/sys on a writable mount (here a directory of the test's temporary
// file system).
func TestProcSysVerifiedReadOnly(t *testing.T) {
	if !slices.Contains(policy.ProcReadOnlyDirs(), "sys") {
		t.Fatalf("policy.ProcReadOnlyDirs() = %v, want /proc/sys among them", policy.ProcReadOnlyDirs())
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc", "sys"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	r := &rootfs{root: root}
	err = r.verifyProcReadOnly("sys")
	if err == nil || !strings.Contains(err.Error(), "/proc/sys is writable") {
		t.Fatalf("verifyProcReadOnly(sys) on a writable mount = %v, want a refusal", err)
	}
}

// TestUserSysctlNeedsItsDescriptor: without the descriptor opened before
// /proc/sys was made read-only, a cap is not written by another path. The
// name is one the kernel does not have: were the write ever to fall back to
// /proc/sys/user by path, a root test run would otherwise set the host's own
// limit.
func TestUserSysctlNeedsItsDescriptor(t *testing.T) {
	r := &rootfs{}
	r.closeUserSysctl()
	if err := r.writeUserSysctl("acbox_test_no_such_counter", 1); err == nil || !strings.Contains(err.Error(), "made read-only") {
		t.Fatalf("writeUserSysctl without the directory = %v, want an error naming it", err)
	}
}

// TestUserSysctlWritesBeneathItsDescriptor: a cap is written to the file of
// that name in the directory openUserSysctl kept (here a temporary one, not
// /proc), and read back.
func TestUserSysctlWritesBeneathItsDescriptor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "max_test_instances"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &rootfs{userSysctl: sysctlDir{name: "user", fd: fd}}
	defer r.closeUserSysctl()
	if err := r.writeUserSysctl("max_test_instances", 7); err != nil {
		t.Fatalf("writeUserSysctl beneath its descriptor: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "max_test_instances")); err != nil || string(b) != "7" {
		t.Fatalf("the file beneath the descriptor reads %q, %v; want 7", b, err)
	}
}

// TestRootOnlyProcVerified: the check before pivot_root refuses a
// top-level /proc file only root may read that is not masked, whatever its
// name (here in a directory of the test's temporary file system), and
// passes one others may read.
func TestRootOnlyProcVerified(t *testing.T) {
	dir := t.TempDir()
	proc := filepath.Join(dir, "proc")
	if err := os.MkdirAll(proc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "meminfo"), nil, 0o444); err != nil {
		t.Fatal(err)
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	r := &rootfs{root: root}
	if err := r.verifyRootOnlyProc(); err != nil {
		t.Fatalf("verifyRootOnlyProc with only a 0444 file = %v, want nil", err)
	}
	for _, c := range []struct {
		name string
		mode os.FileMode
		dir  bool
	}{{"program_cpu", 0o400, false}, {"newdir", 0o500, true}} {
		p := filepath.Join(proc, c.name)
		if c.dir {
			err = os.Mkdir(p, c.mode)
		} else {
			err = os.WriteFile(p, nil, c.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		err = r.verifyRootOnlyProc()
		if err == nil || !strings.Contains(err.Error(), "/proc/"+c.name+" is not hidden") {
			t.Fatalf("verifyRootOnlyProc with /proc/%s mode %o = %v, want a refusal naming it", c.name, c.mode, err)
		}
		os.Remove(p)
	}
}
