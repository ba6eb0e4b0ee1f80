//go:build integration

package docker_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPersistedHome: under the docker backend too, --home NAME binds the
// persisted home read-write at the home: what one run leaves there the
// next reads, the files are the user's, and the home is removable.
func TestPersistedHome(t *testing.T) {
	e := setup(t)
	b := make([]byte, 4)
	rand.Read(b)
	name := "it-docker-" + hex.EncodeToString(b)
	defer e.run(t, "", "home", "rm", name)
	r := e.sh(t, `echo kept > "$HOME/.probe"`, "--home", name)
	if r.code != 0 {
		t.Fatalf("code %d\n%s", r.code, r.errout)
	}
	r = e.sh(t, `cat "$HOME/.probe"`, "--home", name)
	if r.code != 0 || r.out != "kept\n" {
		t.Fatalf("second run: code %d out %q\n%s", r.code, r.out, r.errout)
	}
	home, _ := os.UserHomeDir()
	st, err := os.Stat(filepath.Join(home, ".local", "state", "acbox", "homes", name, ".probe"))
	if err != nil {
		t.Fatal(err)
	}
	if uid, _ := fileOwner(st); uid != os.Getuid() {
		t.Errorf("the home's file is owned by %d, want %d", uid, os.Getuid())
	}
	r = e.sh(t, `cat "$HOME/.probe"`)
	if r.code == 0 || strings.Contains(r.out, "kept") {
		t.Errorf("a run without --home read the persisted home: %q", r.out)
	}
	e.noneLeft(t)
}
