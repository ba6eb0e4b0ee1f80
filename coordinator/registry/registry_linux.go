package registry

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// ProcStart returns the start time of pid (field 22 of /proc/<pid>/stat, in
// clock ticks since boot). A zombie counts as gone: its sandbox is already
// dead (the helper dies with its parent's thread).
func ProcStart(pid int) (uint64, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("pid %d: %w", pid, fs.ErrNotExist)
	}
	b, err := sys.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatStart(b)
}

// parseStatStart reads field 22 of a /proc/<pid>/stat line. The command
// name (field 2) may hold spaces and parentheses, so fields are counted
// from the last ')'.
func parseStatStart(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat line")
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0, fmt.Errorf("malformed stat line")
	}
	if f[0][0] == 'Z' || f[0][0] == 'X' {
		return 0, fmt.Errorf("zombie: %w", fs.ErrNotExist)
	}
	return strconv.ParseUint(string(f[19]), 10, 64)
}

func selfPidNS() uint64 {
	var st unix.Stat_t
	if sys.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

func fileUID(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// replace puts tmp in the place of file atomically, as a rename over it
// would, and removes the old entry. It swaps the two (RENAME_EXCHANGE)
// and unlinks the old one rather than renaming over it: ext4 writes out
// the blocks of a file renamed over another at once (auto_da_alloc), and
// unlinking that entry when the sandbox ends then took 0.6 ms of every
// launch's tail (an entry never written out: 0.1 ms). Where the file
// system cannot swap, or the entry is gone, it renames as before.
func replace(tmp, file string) error {
	if sys.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, file, unix.RENAME_EXCHANGE) != nil {
		return os.Rename(tmp, file)
	}
	os.Remove(tmp)
	return nil
}

// lock takes the registry's exclusive lock (flock on StateDir/registry.lock)
// and returns its release. flock is released by the kernel when the holder
// dies, so a killed launch never wedges the others.
func (r *Registry) lock() (func(), error) {
	f, err := os.OpenFile(r.lockPath(), os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: registry lock: %w", policy.ErrCannotSandbox, err)
	}
	if err := sys.Flock(int(f.Fd()), f.Name(), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: registry lock: %w", policy.ErrCannotSandbox, err)
	}
	return func() { f.Close() }, nil
}
