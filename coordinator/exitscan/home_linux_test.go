package exitscan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExitScanPersistedHome: a persisted home (--home) outlives the run
// as a write grant does, so the scan after the run walks it too: a set-id
// file changed there during the run loses its bits and a new device node
// is named, with a plan that has no write grant at all.
func TestExitScanPersistedHome(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	mapped := filepath.Join(home, ".cache", "tool")
	os.MkdirAll(filepath.Dir(mapped), 0o700)
	os.WriteFile(mapped, make([]byte, 4096), 0o755)
	syscall.Chmod(mapped, 0o4755)
	age(t)
	p := &policy.Plan{PersistedHome: &policy.PersistedHome{Name: "go", Path: home}}
	s := Begin(p, false)
	writeMapped(t, mapped, "#!/bin/sh\necho pwned\n")
	dev := filepath.Join(home, "null")
	devMade := os.Getuid() == 0 && unix.Mknod(dev, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) == nil
	var b strings.Builder
	got, err := s.Finish(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.SetidCleared, []string{mapped}) {
		t.Errorf("cleared %v, want %s; printed %q", got.SetidCleared, mapped, b.String())
	}
	wantMode(t, mapped, 0o755)
	if devMade && !reflect.DeepEqual(got.NewDevices, []string{dev}) {
		t.Errorf("devices %v, want %s", got.NewDevices, dev)
	}
}
