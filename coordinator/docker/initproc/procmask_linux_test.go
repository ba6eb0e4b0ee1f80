package initproc

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestCheckProcRootOnly: the init refuses a /proc whose top level holds an
// unmasked entry only root may read that no list names, whatever its name,
// and accepts one where such entries are named (masked by the daemon) or
// readable by others.
func TestCheckProcRootOnly(t *testing.T) {
	proc := t.TempDir()
	for name, mode := range map[string]os.FileMode{"meminfo": 0o444, "kpageflags": 0o400, "1": 0o400} {
		if err := os.WriteFile(filepath.Join(proc, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("1", filepath.Join(proc, "self")); err != nil {
		t.Fatal(err)
	}
	if err := checkProcRootOnly(proc); err != nil {
		t.Fatalf("checkProcRootOnly = %v, want nil", err)
	}
	if err := os.WriteFile(filepath.Join(proc, "program_cpu"), nil, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := checkProcRootOnly(proc); err == nil || !strings.Contains(err.Error(), "/proc/program_cpu (mode 400) is readable only by root") {
		t.Fatalf("checkProcRootOnly with an unmasked 0400 file = %v, want a refusal naming it", err)
	}
}

// TestCheckProcRootOnlyDirs: a directory only root may read and no list
// names is refused unless it is masked (a tmpfs over it, as the daemon
// masks a directory); one others may read and list, or one a list names,
// is accepted.
func TestCheckProcRootOnlyDirs(t *testing.T) {
	named := policy.ProcMaskDirs()[0]
	for _, c := range []struct {
		name    string
		mode    os.FileMode
		tmpfs   bool
		refused bool
	}{
		{"acbox_test_open", 0o755, false, false},
		{"acbox_test_private", 0o700, false, true},
		{"acbox_test_nolist", 0o754, false, true}, // readable but not searchable by others
		{named, 0o700, false, false},
		{"acbox_test_masked", 0o700, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			proc := t.TempDir()
			dir := filepath.Join(proc, c.name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, c.mode); err != nil {
				t.Fatal(err)
			}
			var err error
			if c.tmpfs {
				err = withTmpfsOn(t, dir, func() error { return checkProcRootOnly(proc) })
			} else {
				err = checkProcRootOnly(proc)
			}
			want := fmt.Sprintf("/proc/%s (mode %o) is readable only by root", c.name, c.mode)
			if c.refused && (err == nil || !strings.Contains(err.Error(), want)) {
				t.Errorf("checkProcRootOnly = %v, want a refusal naming %s", err, c.name)
			}
			if !c.refused && err != nil {
				t.Errorf("checkProcRootOnly = %v, want nil", err)
			}
		})
	}
}

// withTmpfsOn runs fn on a thread of its own in a private mount namespace
// where a tmpfs (mode 0700, like the host directory it masks) covers dir
// (root only). The thread is never unlocked: it dies with its namespace.
func withTmpfsOn(t *testing.T, dir string, fn func() error) error {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a private mount namespace for the tmpfs)")
	}
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if err = unix.Unshare(unix.CLONE_NEWNS); err != nil {
			return
		}
		if err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return
		}
		if err = unix.Mount("tmpfs", dir, "tmpfs", 0, "mode=0700"); err != nil {
			return
		}
		err = fn()
	}()
	<-done
	return err
}
