package sys

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadFile: ReadFile reads what os.ReadFile reads (empty, one buffer,
// several, a /proc file without a size), a missing file is fs.ErrNotExist
// with its path, and ReadAll's limit refuses a longer file.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 5000} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	want, _ := os.ReadFile("/proc/self/mountinfo")
	if got, err := ReadFile("/proc/self/mountinfo"); err != nil || len(got) == 0 || len(got) != len(want) {
		t.Fatalf("mountinfo: %d bytes (os: %d), %v", len(got), len(want), err)
	}
	missing := filepath.Join(dir, "missing")
	var pe *fs.PathError
	if _, err := ReadFile(missing); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != missing {
		t.Fatalf("missing file: %v", err)
	}
	fd, err := Open(filepath.Join(dir, "f"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(fd)
	if _, err := ReadAll(fd, "f", 4999); err == nil {
		t.Fatal("a 5000-byte file read under a 4999-byte limit")
	}
}
