package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every place acbox's state or config may be is masked and refused, not
// only this launch's: a launch with XDG_RUNTIME_DIR set must still hide
// ~/.local/state/acbox (where another sandbox's broker socket lives), and
// the places other launches recorded.
func TestEveryStatePlaceMaskedAndRefused(t *testing.T) {
	f := viewFixture(t)
	h := f.host
	fallback, cfg := filepath.Join(h.Home, ".local/state/acbox"), filepath.Join(h.Home, ".config/acbox")
	// Another launch's place, outside /tmp (the host view's own /tmp hides
	// what the host has there, so such a place needs no mask).
	vt, err := os.MkdirTemp("/var/tmp", "acbox-places-test-")
	if err != nil {
		t.Skip("needs a directory outside /tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(vt) })
	other := filepath.Join(vt, "xdg-other", "acbox")
	for _, d := range []string{fallback + "/run/abc", cfg, other} {
		os.MkdirAll(d, 0o700)
	}
	h.StateDir, h.ConfigDir, h.Places = filepath.Join(f.root, "var", "state"), filepath.Join(f.root, "xdg-cfg", "acbox"), []string{other}
	for _, view := range []string{ViewHost, ViewGrants} {
		spec := Spec{Command: []string{"x"}, View: view}
		if view == ViewGrants {
			spec.Access.Read = []string{h.Home + "/.local"}
		}
		p, err := Resolve(spec, h)
		if view == ViewGrants {
			checkErr(t, err, "private path "+fallback)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ms := maskPaths(p)
		for _, want := range []string{fallback, cfg, other, h.StateDir} {
			if _, ok := ms[want]; !ok {
				t.Errorf("%s view: %s is not masked: %v", view, want, ms)
			}
		}
	}
	for _, g := range []string{other, filepath.Dir(other), cfg, filepath.Join(h.Home, ".config")} {
		_, err := Resolve(Spec{Command: []string{"x"}, Access: Access{Read: []string{g}}}, h)
		checkErr(t, err, "private path")
	}
}

// A launch records a state or config directory outside the usual places,
// once, so that later launches mask it; the usual places are not recorded.
func TestPlacesRecorded(t *testing.T) {
	f := newFixture(t)
	h := f.host
	h.StateDir, h.ConfigDir = filepath.Join(f.root, "rt", "acbox"), fallbackConfigDir(h.Home)
	os.MkdirAll(filepath.Dir(h.StateDir), 0o700)
	for range 2 {
		got, err := loadPlaces(h)
		if err != nil || !slices.Equal(got, []string{h.StateDir}) {
			t.Fatalf("loadPlaces = %v, %v; want [%s]", got, err, h.StateDir)
		}
	}
	b, _ := os.ReadFile(filepath.Join(fallbackStateDir(h.Home), placesFile))
	if string(b) != h.StateDir+"\n" {
		t.Errorf("places file %q: want the state directory once", b)
	}
	h.StateDir = fallbackStateDir(h.Home)
	if got, _ := loadPlaces(h); len(got) != 1 {
		t.Errorf("the usual places were recorded: %v", got)
	}
	if got := existingPlaces([]string{filepath.Join(f.root, "gone", "acbox"), filepath.Join(f.root, "rt", "acbox")}); len(got) != 1 {
		t.Errorf("existingPlaces kept a place whose directory is gone: %v", got)
	}
}

// Only the built-in templates glob; a user's path with "[" is a name.
func TestUserMaskPathsAreLiteral(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	for _, n := range []string{"secret[1]", "a*b", "q?"} {
		os.WriteFile(filepath.Join(home, n), []byte("s"), 0o600)
	}
	h := f.host
	h.Protect = append(h.Protect, filepath.Join(home, "q?"))
	p, err := Resolve(Spec{Command: []string{"x"}, View: ViewHost, Exclude: []string{home + "/secret[1]", home + "/a*b"}}, h)
	if err != nil {
		t.Fatal(err)
	}
	var v *ViewDir
	for i := range p.Views {
		if p.Views[i].Path == home {
			v = &p.Views[i]
		}
	}
	if v == nil {
		t.Fatalf("no view of the home: %+v", p.Views)
	}
	for _, n := range []string{"secret[1]", "a*b", "q?"} {
		if !slices.Contains(v.Hide, n) || slices.Contains(v.HideGlob, n) {
			t.Errorf("%s: hide %v glob %v; want it hidden as a literal name", n, v.Hide, v.HideGlob)
		}
		if m := maskPaths(p)[filepath.Join(home, n)]; m.Kind != "file" {
			t.Errorf("%s: mask %+v, want a file", n, m)
		}
	}
	for _, cv := range p.Views {
		if cv.Path == home+"/.cargo" && !slices.Contains(cv.HideGlob, "credentials*") {
			t.Errorf("the built-in pattern is no longer a pattern: %+v", cv)
		}
	}
}

// The anchor's own entry must not be live: as root every directory from
// the first level below "/" (host view) or the system directory (grants
// view) down to the masked name is a snapshot; a non-root caller's chain
// starts at the topmost directory it owns or may write.
func TestSnapshotChainAnchors(t *testing.T) {
	f := newFixture(t)
	top := "/" + strings.SplitN(f.root[1:], "/", 2)[0]
	sec := filepath.Join(f.root, "srv", "a", "x", "secret")
	os.MkdirAll(filepath.Dir(sec), 0o755)
	os.WriteFile(sec, []byte("s"), 0o600)
	cases := []struct {
		name string
		uid  int
		view string
		want []string // views that must exist
	}{
		{"root host view", 0, ViewHost, []string{"/", top, f.root, filepath.Join(f.root, "srv"), filepath.Join(f.root, "srv", "a"), filepath.Dir(sec)}},
		{"user host view, owns nothing", 4242, ViewHost, []string{"/", filepath.Dir(sec)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := f.host
			h.UID, h.GID = c.uid, c.uid
			p, err := Resolve(Spec{Command: []string{"x"}, View: c.view, Exclude: []string{sec}}, h)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range p.Views {
				got = append(got, v.Path)
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("view %s missing: %v", w, got)
				}
			}
		})
	}
	// /etc/ssh/ssh_host_* as root in the grants view: /etc/ssh's own entry
	// lives in /etc, which must be a snapshot too.
	if _, err := os.Stat("/etc/ssh"); err != nil {
		return
	}
	h := f.host
	h.UID = 0
	p, err := Resolve(Spec{Command: []string{"x"}}, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/etc", "/etc/ssh"} {
		if !slices.ContainsFunc(p.Views, func(v ViewDir) bool { return v.Path == want }) {
			t.Errorf("grants view as root: no view of %s: %+v", want, p.Views)
		}
	}
}

// Runtime mounts never show a built-in credential path, in any view;
// acbox's own mounts and ordinary files are untouched.
func TestMountShowingCredentialRefused(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), nil, 0o644)
	os.WriteFile(filepath.Join(home, ".cargo", "config.toml"), nil, 0o644)
	cases := []struct {
		name, src string
		internal  bool
		want      string
	}{
		{"credential dir", home + "/.ssh", false, "built-in credential path"},
		{"file in credential dir", home + "/.ssh/known_hosts", false, "built-in credential path"},
		{"symlinked credential's real target", f.root + "/data/aws", false, "built-in credential path"},
		{"parent of a symlinked target", f.root + "/data", false, "built-in credential path"},
		{"pattern match", home + "/.cargo/credentials.toml", false, "built-in credential path"},
		{"directory of a pattern", home + "/.cargo", false, "built-in credential path"},
		{"shadow", "/etc/shadow", false, "built-in credential path"},
		{"etc", "/etc", false, "built-in credential path"},
		{"pattern's neighbour", home + "/.cargo/config.toml", false, ""},
		{"ordinary file", home + "/file", false, ""},
		{"passwd", "/etc/passwd", false, ""},
		{"acbox's own", home + "/.ssh", true, ""},
	}
	for _, c := range cases {
		for _, view := range []string{ViewGrants, ViewHost} {
			t.Run(c.name+"/"+view, func(t *testing.T) {
				dst := "/mnt-x"
				if view == ViewHost {
					dst = home + "/file"
					if fi, err := os.Stat(c.src); err == nil && fi.IsDir() {
						dst = home + "/other"
					}
				}
				_, err := Resolve(Spec{Command: []string{"x"}, View: view, Mounts: []MountSpec{{Source: c.src, Target: dst, Internal: c.internal}}}, f.host)
				checkErr(t, err, c.want)
			})
		}
	}
}

// --delegate's mounts under /.acbox need no host directory in the host
// view: the backend provides its own.
func TestHostViewDelegateTargets(t *testing.T) {
	f := viewFixture(t)
	sock := filepath.Join(f.host.StateDir, "broker.sock")
	os.WriteFile(sock, nil, 0o600)
	spec := Spec{Command: []string{"x"}, View: ViewHost, Delegate: true, Mounts: []MountSpec{
		{Source: f.host.Home + "/file", Target: DelegateBin, Internal: true},
		{Source: sock, Target: DelegateSocket, Readonly: RW(true), Internal: true}}}
	if _, err := Resolve(spec, f.host); err != nil {
		t.Fatal(err)
	}
}

// An --exclude that names nothing, or a whole system directory of the
// grants view (which setup could not hold: it failed inside the sandbox),
// is refused at planning; the same directory in the host view is masked.
func TestExcludeRefusals(t *testing.T) {
	f := viewFixture(t)
	for _, c := range []struct {
		view, exclude string
		refused       bool
	}{
		{ViewGrants, "", true},
		{ViewHost, "", true},
		{ViewGrants, "/etc", true},
		{ViewGrants, "/usr/", true},
		{ViewGrants, "/etc/hostname", false},
		{ViewHost, "/etc", false},
	} {
		_, err := Resolve(Spec{Command: []string{"x"}, View: c.view, Exclude: []string{c.exclude}}, f.host)
		if got := err != nil; got != c.refused {
			t.Errorf("view %s, --exclude %q: err %v, want refused %v", c.view, c.exclude, err, c.refused)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("view %s, --exclude %q: %v is not a refusal", c.view, c.exclude, err)
		}
	}
}
