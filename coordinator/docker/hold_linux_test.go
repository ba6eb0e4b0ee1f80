package docker

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// carveFixture is a write grant holding a repository's .git with hooks and
// config, and a plan that protects them as the coordinator would: each
// carve-out with the dev/ino it checked.
func carveFixture(t *testing.T) *setup {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, exe, gate := filepath.Join(base, "repo"), filepath.Join(base, "acbox"), filepath.Join(base, "gate")
	os.MkdirAll(filepath.Join(repo, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(exe, nil, 0o755)
	os.Mkdir(gate, 0o700)
	p := &policy.Plan{Grants: []policy.Grant{{Path: repo, Write: true}}}
	for _, c := range []struct{ rel, mode, kind string }{
		{".git", policy.CarvePin, "dir"}, {".git/config", policy.CarveReadOnly, "file"}, {".git/hooks", policy.CarveReadOnly, "dir"},
	} {
		path := filepath.Join(repo, c.rel)
		var st syscall.Stat_t
		if err := syscall.Lstat(path, &st); err != nil {
			t.Fatal(err)
		}
		p.Protected = append(p.Protected, policy.Carveout{Path: path, Grant: repo, Mode: c.mode, Kind: c.kind, Why: "test", Dev: st.Dev, Ino: st.Ino})
	}
	return newSetup(p, "t", "img", exe, gate, "", "tok", owner{})
}

func TestHoldCarveouts(t *testing.T) {
	s := carveFixture(t)
	h, err := holdSources(s)
	if err != nil {
		t.Fatalf("hold: %v", err)
	}
	defer h.close()
	for _, c := range s.plan.Protected {
		if id := h.idents[c.Path]; id.Dev != c.Dev || id.Ino != c.Ino {
			t.Errorf("%s held as %d/%d; want %d/%d", c.Path, id.Dev, id.Ino, c.Dev, c.Ino)
		}
	}
}

// TestHoldRefusesSwappedCarveout: a carve-out replaced after the plan was
// made (here the hooks directory renamed away and a new one made, or the
// config made a symlink) is refused before anything is created.
func TestHoldRefusesSwappedCarveout(t *testing.T) {
	for _, c := range []struct {
		name, want string
		swap       func(git string)
	}{
		{"hooks replaced", "not the file that was checked", func(git string) {
			os.Rename(filepath.Join(git, "hooks"), filepath.Join(git, "hooks.old"))
			os.Mkdir(filepath.Join(git, "hooks"), 0o755)
		}},
		{"config replaced", "not the file that was checked", func(git string) {
			// Written beside and renamed over, as git does: a new inode.
			os.WriteFile(filepath.Join(git, "config.lock"), nil, 0o644)
			os.Rename(filepath.Join(git, "config.lock"), filepath.Join(git, "config"))
		}},
		// O_PATH|O_NOFOLLOW opens a symlink itself: the link's own inode
		// is not the file's.
		{"config a symlink", "not the file that was checked", func(git string) {
			os.Rename(filepath.Join(git, "config"), filepath.Join(git, "config.real"))
			os.Symlink("config.real", filepath.Join(git, "config"))
		}},
		{"hooks a file", "without following symlinks", func(git string) {
			os.Remove(filepath.Join(git, "hooks"))
			os.WriteFile(filepath.Join(git, "hooks"), nil, 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := carveFixture(t)
			c.swap(filepath.Join(s.plan.Grants[0].Path, ".git"))
			h, err := holdSources(s)
			if err == nil {
				h.close()
				t.Fatal("held a swapped carve-out")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q; want one mentioning %q", err, c.want)
			}
		})
	}
}
