//go:build linux

package registry

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStateFilesNotFollowed: a ticket or a registry entry that is a FIFO,
// or a symlink to /dev/zero, hung every launch of the user (under the
// registry lock) or read without end. They are damaged files: skipped and
// removed like any other.
func TestStateFilesNotFollowed(t *testing.T) {
	r := newRegistry(t)
	for _, p := range []string{
		filepath.Join(r.queueDir(), "00000000000000000001-1.json"),
		filepath.Join(r.dir(), "aaaaaaaaaaaa.json"),
	} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{
		filepath.Join(r.queueDir(), "00000000000000000002-1.json"),
		filepath.Join(r.dir(), "bbbbbbbbbbbb.json"),
	} {
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		if _, err := r.Enqueue("waiter", time.Now().Add(time.Minute)); err != nil {
			done <- err
			return
		}
		_, err := r.List()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the queue or the registry hung on a FIFO or /dev/zero")
	}
}
