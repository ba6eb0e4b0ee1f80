package pin_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/pin"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestHold: a real directory is held with its identity; a symlink, as the
// last component or as a parent, is refused.
func TestHold(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	os.Symlink(real, filepath.Join(dir, "link"))
	fd, dev, ino, err := pin.Hold(real, unix.O_DIRECTORY)
	if err != nil {
		t.Fatalf("Hold(%s): %v", real, err)
	}
	unix.Close(fd)
	var st unix.Stat_t
	unix.Stat(real, &st)
	if dev != uint64(st.Dev) || ino != uint64(st.Ino) {
		t.Errorf("Hold: dev/ino %d/%d, want %d/%d", dev, ino, st.Dev, st.Ino)
	}
	for _, p := range []string{filepath.Join(dir, "link"), filepath.Join(dir, "link", "sub")} {
		if fd, _, _, err := pin.Hold(p, unix.O_DIRECTORY); !errors.Is(err, policy.ErrRefused) {
			if err == nil {
				unix.Close(fd)
			}
			t.Errorf("Hold(%s) through a symlink: %v, want a refusal", p, err)
		}
	}
}

func TestMatchGrant(t *testing.T) {
	g := policy.Grant{Path: "/g", Dev: 1, Ino: 2}
	if err := pin.MatchGrant(g, 1, 2); err != nil {
		t.Errorf("same dev/ino: %v", err)
	}
	if err := pin.MatchGrant(g, 1, 3); !errors.Is(err, policy.ErrRefused) {
		t.Errorf("replaced directory: %v, want a refusal", err)
	}
	if err := pin.MatchGrant(policy.Grant{Path: "/g"}, 1, 3); err != nil {
		t.Errorf("no recorded identity: %v", err)
	}
}
