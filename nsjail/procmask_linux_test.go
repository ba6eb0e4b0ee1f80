package nsjail

import (
	"testing"

	"golang.org/x/sys/unix"
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
