//go:build integration

package views

import (
	"os"
	"path/filepath"
	"testing"
)

// As root /etc is a view (its shadow files are masked), built on /etc
// itself in the helper's namespace and then moved into the new root, where
// it is made read-only. A writable runtime mount whose source lies beneath
// it is cloned before the move and must stay writable, in both views; /etc
// stays read-only and its masked names absent.
func TestMountFromMovedView(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the /etc view is built for root only")
	}
	src, err := os.MkdirTemp("/etc", "acbox-views-moved-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(src)
	// MkdirTemp makes it 0700, which a root caller's /etc snapshot leaves
	// out (a root-only entry); this test is about the mount, not that rule.
	if err := os.Chmod(src, 0o755); err != nil {
		t.Fatal(err)
	}
	root := runners(t)[1]
	for _, view := range []string{"grants", "host"} {
		t.Run(view, func(t *testing.T) {
			target := "/mnt"
			ps := []probe{
				{"mount_writable", "echo " + view + " > " + target + "/out && grep -q " + view + " " + target + "/out", true},
				{"etc_read_only", "touch /etc/acbox-views-moved-new", false},
				{"etc_readable", "grep -q root /etc/passwd", true},
				{"shadow_absent", "ls -a /etc | grep -qx shadow", false},
				{"source_shown", "test -d " + src, true},
			}
			out, errs, code := root.acbox(t, "/", "run", "--view", view, "--mount", src+":"+target+":rw", "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
			if b, err := os.ReadFile(filepath.Join(src, "out")); err != nil || string(b) != view+"\n" {
				t.Errorf("the mount's file is not on the host: %q %v", b, err)
			}
		})
	}
}
