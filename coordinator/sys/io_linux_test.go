package sys

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFileCalls: the descriptor calls round-trip, and a failing call names
// itself and its subject while errors.Is still finds the errno.
func TestFileCalls(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(d)
	fd, err := Openat(d, "f", unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(fd)
	if n, err := Write(fd, "f", []byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	if err := Fsync(fd, "f"); err != nil {
		t.Fatal(err)
	}
	if off, err := Seek(fd, "f", 0, 0); off != 0 || err != nil {
		t.Fatalf("seek: %d %v", off, err)
	}
	buf := make([]byte, 16)
	if n, err := Read(fd, "f", buf); string(buf[:n]) != "hello" || err != nil {
		t.Fatalf("read: %q %v", buf[:n], err)
	}
	if n, err := Getdents(d, dir, make([]byte, 4096)); n <= 0 || err != nil {
		t.Fatalf("getdents: %d %v", n, err)
	}
	if _, err := Getdents(fd, "f", make([]byte, 4096)); !errors.Is(err, unix.ENOTDIR) || !isPathErr(err, "getdents64", "f") {
		t.Errorf("getdents of a file: %v", err)
	}
	var st unix.Stat_t
	if err := Lstat(filepath.Join(dir, "none"), &st); !errors.Is(err, unix.ENOENT) || !isPathErr(err, "lstat", filepath.Join(dir, "none")) {
		t.Errorf("lstat of nothing: %v", err)
	}
	var sfs unix.Statfs_t
	if err := Statfs(dir, &sfs); err != nil {
		t.Errorf("statfs: %v", err)
	}
}

// TestRenameat2: NOREPLACE refuses an existing name with an *os.LinkError
// naming both.
func TestRenameat2(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o600)
	d, err := Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(d)
	err = Renameat2(d, "a", d, "b", unix.RENAME_NOREPLACE)
	var le *os.LinkError
	if !errors.Is(err, unix.EEXIST) || !errors.As(err, &le) || le.Old != "a" || le.New != "b" {
		t.Errorf("rename onto an existing name: %v", err)
	}
	if err := Renameat2(d, "a", d, "c", unix.RENAME_NOREPLACE); err != nil {
		t.Errorf("rename: %v", err)
	}
}

func TestProcAndSocketCalls(t *testing.T) {
	if _, err := Getgroups(); err != nil {
		t.Errorf("getgroups: %v", err)
	}
	fds, err := Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(fds[0])
	defer Close(fds[1])
	b := make([]byte, 1)
	if _, _, err := Recvfrom(fds[0], b, unix.MSG_PEEK|unix.MSG_DONTWAIT); !errors.Is(err, unix.EAGAIN) {
		t.Errorf("peek on an empty socket: %v", err)
	}
	if _, err := GetsockoptTCPInfo(fds[0]); err == nil {
		t.Errorf("TCP_INFO of a Unix socket succeeded")
	}
}

func isPathErr(err error, op, path string) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Op == op && pe.Path == path
}
