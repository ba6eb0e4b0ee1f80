//go:build linux

package landlock

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// systemDirs returns the real (non-symlink) system directories a member
// needs to run /bin/sh, /usr/bin/true and the like.
func systemDirs() []string {
	var out []string
	for _, d := range []string{"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// check reports an error unless err is want (nil: success).
func check(t *testing.T, what string, err error, want syscall.Errno) {
	t.Helper()
	switch {
	case want == 0 && err != nil:
		t.Errorf("%s: got %v, want success", what, err)
	case want != 0 && !errors.Is(err, want):
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRestrictFilesystem checks every list against the real kernel. As root
// too: Landlock applies regardless of DAC overrides and capabilities.
func TestRestrictFilesystem(t *testing.T) {
	requireABI(t, 6)
	inChild(t, func(t *testing.T) {
		base := t.TempDir()
		ro, rw, out := filepath.Join(base, "ro"), filepath.Join(base, "rw"), filepath.Join(base, "out")
		mkdirs(t, ro, out, filepath.Join(rw, "a"), filepath.Join(rw, "b"))
		for _, f := range []string{filepath.Join(ro, "file"), filepath.Join(out, "file"), filepath.Join(rw, "a", "f")} {
			if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		copyFile(t, "/usr/bin/true", filepath.Join(ro, "true"))
		copyFile(t, "/usr/bin/true", filepath.Join(out, "true"))
		r := Rules{ReadOnly: append(systemDirs(), ro), ReadWrite: []string{rw}, Devices: []string{"/dev/null"}}

		rep := onRestrictedThread(t, r, func() {
			check(t, "write outside", os.WriteFile(filepath.Join(out, "new"), nil, 0o644), unix.EACCES)
			_, err := os.ReadFile(filepath.Join(out, "file"))
			check(t, "read outside", err, unix.EACCES)
			_, err = os.ReadDir(out)
			check(t, "readdir of an unlisted dir", err, unix.EACCES)
			_, err = os.ReadDir("/")
			check(t, "readdir of /", err, unix.EACCES)

			_, err = os.ReadFile(filepath.Join(ro, "file"))
			check(t, "read ReadOnly", err, 0)
			_, err = os.ReadDir(ro)
			check(t, "readdir ReadOnly", err, 0)
			_, err = os.OpenFile(filepath.Join(ro, "file"), os.O_WRONLY, 0)
			check(t, "open ReadOnly for writing", err, unix.EACCES)
			check(t, "create in ReadOnly", os.WriteFile(filepath.Join(ro, "new"), nil, 0o644), unix.EACCES)

			check(t, "create in ReadWrite", os.WriteFile(filepath.Join(rw, "new"), []byte("abc"), 0o644), 0)
			check(t, "truncate in ReadWrite", os.Truncate(filepath.Join(rw, "new"), 1), 0)
			check(t, "mkdir in ReadWrite", os.Mkdir(filepath.Join(rw, "d"), 0o755), 0)
			check(t, "symlink in ReadWrite", os.Symlink("new", filepath.Join(rw, "link")), 0)
			check(t, "mkfifo in ReadWrite", unix.Mkfifo(filepath.Join(rw, "fifo"), 0o644), 0)
			check(t, "rename across dirs in ReadWrite (refer)", os.Rename(filepath.Join(rw, "a", "f"), filepath.Join(rw, "b", "f")), 0)
			check(t, "remove in ReadWrite", os.Remove(filepath.Join(rw, "b", "f")), 0)
			check(t, "mknod whiteout in ReadWrite (make_char withheld)", unix.Mknod(filepath.Join(rw, "wh"), unix.S_IFCHR, 0), unix.EACCES)

			f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
			check(t, "write Devices /dev/null", err, 0)
			if err == nil {
				f.Close()
			}
			_, err = os.Open("/dev/zero")
			check(t, "open unlisted device /dev/zero", err, unix.EACCES)

			// Children forked from this thread inherit the domain.
			check(t, "exec from ReadOnly", exec.Command(filepath.Join(ro, "true")).Run(), 0)
			check(t, "exec from an unlisted dir", exec.Command(filepath.Join(out, "true")).Run(), unix.EACCES)
			check(t, "child writes in ReadWrite", exec.Command("/bin/sh", "-c", "echo x > "+rw+"/child").Run(), 0)
			if err := exec.Command("/bin/sh", "-c", "echo x > "+out+"/child").Run(); err == nil {
				t.Errorf("child wrote outside the rules")
			}
		})
		if _, err := os.Stat(filepath.Join(out, "child")); err == nil {
			t.Errorf("a restricted child created %s/child", out)
		}
		abi, _ := ABI()
		want := Plan(r, abi)
		if rep.ABI != abi || len(rep.Missing) != 0 || len(rep.HandledFS) != len(want.HandledFS) || rep.Rules != want.Rules {
			t.Errorf("report %+v does not match Plan %+v", rep, want)
		}
		t.Logf("report: %+v", rep)
	})
}

// TestRestrictDeviceIoctl shows that Devices grant ioctl_dev and ReadWrite
// does not, using the pty multiplexer's TIOCGPTN.
func TestRestrictDeviceIoctl(t *testing.T) {
	requireABI(t, 6)
	if fi, err := os.Lstat("/dev/ptmx"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("/dev/ptmx is not a character device here")
	}
	for _, tt := range []struct {
		name  string
		r     Rules
		ioctl syscall.Errno
	}{
		{"Devices", Rules{Devices: []string{"/dev/ptmx"}}, 0},
		{"ReadWrite", Rules{ReadWrite: []string{"/dev/ptmx"}}, unix.EACCES},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inChild(t, func(t *testing.T) {
				onRestrictedThread(t, tt.r, func() {
					fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
					check(t, "open /dev/ptmx", err, 0)
					if err != nil {
						return
					}
					defer unix.Close(fd)
					_, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN)
					check(t, "ioctl TIOCGPTN", err, tt.ioctl)
				})
			})
		})
	}
}

// TestRestrictThreadRefuses covers paths that must stop the launch before the
// thread changes.
func TestRestrictThreadRefuses(t *testing.T) {
	requireABI(t, 6)
	inChild(t, func(t *testing.T) {
		base := t.TempDir()
		if err := os.Symlink("/usr", filepath.Join(base, "link")); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			path, says string
		}{
			{filepath.Join(base, "missing"), "no such file"},
			{filepath.Join(base, "link"), `symlink to "/usr"`},
			{"relative", "absolute"},
		} {
			_, err := RestrictThread(Rules{ReadOnly: []string{tt.path}}, true)
			if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("RestrictThread(%s) = %v, want an error naming it and saying %q", tt.path, err, tt.says)
			}
		}
		// Nothing was applied: this goroutine's thread can still write.
		check(t, "write after refusals", os.WriteFile(filepath.Join(base, "f"), nil, 0o644), 0)
		if n, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); n != 0 {
			t.Errorf("a refused RestrictThread set no_new_privs")
		}
	})
}
