//go:build integration

package views

import (
	"os"
	"path/filepath"
	"testing"
)

// A root caller's member reads as the host's root user: every /etc entry
// that "other" may not read (a 0600 key, a 0700 directory) is left out of
// its /etc snapshot, in both views, while world-readable ones show; a
// root-only entry the test names as a runtime mount target's way stays.
// The well-known deeper places (/etc/ssl/private, /etc/docker/key.json,
// /etc/security/opasswd) are absent too when the host has them. The
// test user, who could not read them anyway, still sees the names.
func TestEtcRootOnlyHidden(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the /etc view is built for root only")
	}
	key := tempIn(t, "/etc", "acbox-views-key-", 0o600, false)
	dir := tempIn(t, "/etc", "acbox-views-dir-", 0o700, true)
	pub := tempIn(t, "/etc", "acbox-views-pub-", 0o644, false)
	ps := []probe{
		{"key_absent", "! ls -a /etc | grep -qx " + filepath.Base(key), true},
		{"key_unreadable", "cat " + key, false},
		{"dir_absent", "test -e " + dir, false},
		{"pub_shown", "cat " + pub, true},
		{"passwd_readable", "grep -q root /etc/passwd", true},
	}
	for _, deep := range []string{"/etc/ssl/private", "/etc/docker/key.json", "/etc/security/opasswd"} {
		if _, err := os.Lstat(deep); err == nil {
			ps = append(ps, probe{"deep_absent_" + filepath.Base(deep), "test -e " + deep, false})
		}
	}
	users := runners(t)
	root := users[1]
	for _, view := range []string{"grants", "host"} {
		t.Run(view, func(t *testing.T) {
			out, errs, code := root.acbox(t, "/", "run", "--view", view, "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
		})
	}
	t.Run("user sees the names", func(t *testing.T) {
		up := []probe{{"key_listed", "ls -a /etc | grep -qx " + filepath.Base(key), true}, {"key_unreadable", "cat " + key, false}}
		out, errs, code := users[0].acbox(t, "/", "run", "--", "sh", "-c", script(up))
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		checkProbes(t, up, out)
	})
}

// tempIn makes a fresh file or directory in dir with mode, removed at the
// end of the test.
func tempIn(t *testing.T, dir, prefix string, mode os.FileMode, isDir bool) string {
	t.Helper()
	var p string
	if isDir {
		d, err := os.MkdirTemp(dir, prefix)
		if err != nil {
			t.Fatal(err)
		}
		p = d
	} else {
		f, err := os.CreateTemp(dir, prefix)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("secret\n")
		f.Close()
		p = f.Name()
	}
	t.Cleanup(func() { os.RemoveAll(p) })
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}
