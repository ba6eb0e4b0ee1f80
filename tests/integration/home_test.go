//go:build integration

package integration

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// homeName is a fresh persisted home's name, removed when the test ends.
func homeName(t *testing.T, m mode) string {
	b := make([]byte, 4)
	rand.Read(b)
	name := "it-" + hex.EncodeToString(b)
	t.Cleanup(func() { runBox(t, m, "home", "rm", name) })
	return name
}

// TestPersistedHome: what one run with --home NAME leaves in its home the
// next run with NAME reads; a run without it, and a host-view sandbox
// looking at acbox's state directory, do not see it; `acbox home list`
// shows it and `acbox home rm` removes it.
func TestPersistedHome(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		name := homeName(t, m)
		dir := filepath.Join(m.home, ".local", "state", "acbox", "homes", name)
		if r := runBox(t, m, "run", "--home", name, "--", "sh", "-c", `echo kept > "$HOME/.probe" && test "$PWD" = "$HOME"`); r.code != 0 {
			t.Fatalf("%v", r)
		}
		if r := runBox(t, m, "run", "--home", name, "--", "cat", m.home+"/.probe"); r.code != 0 || r.stdout != "kept\n" {
			t.Fatalf("second run: %v", r)
		}
		probe(t, m, nil, `no tmpfs-home 'cat "$HOME/.probe"'`)
		probe(t, m, []string{"--view", "host"}, `no state-dir 'ls `+dir+`'; no state-file 'cat `+dir+`/.probe'`)
		fi, err := os.Lstat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
			t.Fatalf("%s: %v %v, want a directory 0700", dir, fi, err)
		}
		r := runBox(t, m, "home", "list", "--json")
		var list []struct {
			Name    string `json:"name"`
			Entries int    `json:"entries"`
			Bytes   int64  `json:"bytes"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
			t.Fatalf("home list: %v %v", err, r)
		}
		found := false
		for _, h := range list {
			found = found || (h.Name == name && h.Entries == 1)
		}
		if !found {
			t.Fatalf("home list has no %s with one entry: %s", name, r.stdout)
		}
		if r := runBox(t, m, "home", "rm", name); r.code != 0 {
			t.Fatalf("home rm: %v", r)
		}
		if _, err := os.Lstat(dir); !os.IsNotExist(err) {
			t.Fatalf("home rm left %s: %v", dir, err)
		}
	})
}

// TestPersistedHomeRefusals: a second run with a home in use, a symlink
// planted as the home, and a home opened to others are refused (125)
// with the reason, and nothing is written through the link.
func TestPersistedHomeRefusals(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		name := homeName(t, m)
		homes := filepath.Join(m.home, ".local", "state", "acbox", "homes")
		b := startBox(t, m, "run", "--home", name, "--", "sh", "-c", "echo up; sleep 30")
		b.waitLine(t, "up")
		r := runBox(t, m, "run", "--home", name, "--", "true")
		if r.code != 125 || !strings.Contains(r.stderr, "in use by another run") {
			t.Errorf("second run while the first holds the home: %v", r)
		}
		if r := runBox(t, m, "home", "rm", name); r.code != 125 {
			t.Errorf("home rm while in use: %v", r)
		}
		b.cmd.Process.Kill()
		<-b.done

		victim := fx.dir("victim")
		planted := homeName(t, m)
		if err := os.Symlink(victim, filepath.Join(homes, planted)); err != nil {
			t.Fatal(err)
		}
		r = runBox(t, m, "run", "--home", planted, "--", "sh", "-c", "touch ~/x")
		if r.code != 125 || !strings.Contains(r.stderr, "not a directory acbox made") {
			t.Errorf("planted symlink: %v", r)
		}
		if ents, _ := os.ReadDir(victim); len(ents) != 0 {
			t.Errorf("written through the planted link: %v", ents)
		}
		opened := homeName(t, m)
		if r := runBox(t, m, "run", "--home", opened, "--", "chmod", "755", m.home); r.code != 0 {
			t.Fatalf("%v", r)
		}
		r = runBox(t, m, "run", "--home", opened, "--", "true")
		if r.code != 125 || !strings.Contains(r.stderr, "mode 0755") {
			t.Errorf("home opened to others by the last run: %v", r)
		}
		if r := runBox(t, m, "run", "--home", "../x", "--", "true"); r.code != 2 {
			t.Errorf("bad name: %v", r)
		}
	})
}
