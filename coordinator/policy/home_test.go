package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCheckHomeName(t *testing.T) {
	for name, ok := range map[string]bool{
		"go": true, "a": true, "Go-1.26_cache": true, "0": true, strings.Repeat("x", MaxHomeName): true,
		"": false, ".": false, "..": false, ".hidden": false, "-x": false, "_x": false, "a/b": false, "../x": false,
		"a b": false, "a\x00": false, "ä": false, "a:b": false, "~": false, strings.Repeat("x", MaxHomeName+1): false,
	} {
		err := CheckHomeName(name)
		if (err == nil) != ok || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("CheckHomeName(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

// FuzzCheckHomeName: an accepted name is one path component that is no
// hidden file, '.' or '..', and joins below the homes directory.
func FuzzCheckHomeName(f *testing.F) {
	for _, s := range []string{"go", "..", ".x", "a/b", "a..b", "x-1.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckHomeName(name) != nil {
			return
		}
		j := filepath.Join("/h", name)
		if filepath.Dir(j) != "/h" || filepath.Base(j) != name || strings.HasPrefix(name, ".") || len(name) > MaxHomeName {
			t.Fatalf("accepted %q", name)
		}
	})
}

// TestResolveHome: --home replaces the home tmpfs with a read-write mount
// of the persisted home at the home, frees the tmpfs budget, and the
// checks after the run cover it; nested launches, the host view, a tmpfs
// at the home and bad names are refused with what to do.
func TestResolveHome(t *testing.T) {
	fx := newFixture(t)
	p, err := Resolve(Spec{Command: []string{"true"}, Home: "go", Access: Access{Write: []string{filepath.Join(fx.host.Home, "proj")}}}, fx.host)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(fx.host.Home, ".local", "state", "acbox", "homes", "go")
	if p.PersistedHome == nil || p.PersistedHome.Path != want || p.PersistedHome.Name != "go" {
		t.Fatalf("persisted home %+v, want %s", p.PersistedHome, want)
	}
	for _, tm := range p.Tmpfs {
		if tm.Target == fx.host.Home {
			t.Fatalf("home tmpfs kept: %+v", p.Tmpfs)
		}
	}
	var found bool
	for _, m := range p.Mounts {
		if m.Target == fx.host.Home {
			found = m.Source == want && !m.Readonly && m.Kind == "dir"
		}
	}
	if !found {
		t.Fatalf("no read-write mount of %s at the home: %+v", want, p.Mounts)
	}
	if roots := p.ScanRoots(); len(roots) != 2 || roots[1] != want {
		t.Fatalf("ScanRoots %v: want the write grant and the home", roots)
	}
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"nested", Spec{Home: "go", Depth: 1}, "nested launch may not use a persisted home"},
		{"host view", Spec{Home: "go", View: ViewHost}, "use --view grants"},
		{"tmpfs at home", Spec{Home: "go", Tmpfs: []TmpfsSpec{{Target: fx.host.Home + "/"}}}, "both set the home"},
		{"path", Spec{Home: "../x"}, "a name, not a path"},
		{"dots", Spec{Home: ".."}, "a name, not a path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Command = []string{"true"}
			_, err := Resolve(tc.spec, fx.host)
			checkErr(t, err, tc.want)
		})
	}
}

// TestHomesDirCanonical: the homes directory's path has the symlinks of
// its existing part resolved (the backends require a canonical path).
func TestHomesDirCanonical(t *testing.T) {
	fx := newFixture(t)
	real := filepath.Join(fx.root, "elsewhere")
	os.MkdirAll(real, 0o700)
	os.Symlink(real, filepath.Join(fx.host.Home, ".local"))
	if got, want := HomesDir(fx.host), filepath.Join(real, "state", "acbox", "homes"); got != want {
		t.Fatalf("HomesDir = %s, want %s", got, want)
	}
}

// TestSpecHome: "home" is read from a JSON spec, by the same rule as --home.
func TestSpecHome(t *testing.T) {
	s, err := ParseSpec(strings.NewReader(`{"command":["true"],"home":"go"}`))
	if err != nil || s.Home != "go" {
		t.Fatalf("%+v %v", s, err)
	}
	fx := newFixture(t)
	s.Home = "a/b"
	if _, err := Resolve(s, fx.host); !errors.Is(err, ErrInvalid) {
		t.Fatalf("want invalid, got %v", err)
	}
}

// TestScanRoots: the exit scan walks every place the member can write that
// outlives the run: write grants, the persisted home, read-write directory
// mounts (each once), and looks at read-write file mounts; read-only
// mounts, read grants and sockets are not its business.
func TestScanRoots(t *testing.T) {
	for _, tc := range []struct {
		name         string
		plan         Plan
		roots, files []string
	}{
		{"grants only", Plan{Grants: []Grant{{Path: "/w", Write: true}, {Path: "/r"}}}, []string{"/w"}, nil},
		{"rw dir mount", Plan{Mounts: []Mount{{Source: "/m", Target: "/x", Kind: "dir"}}}, []string{"/m"}, nil},
		{"ro dir mount", Plan{Mounts: []Mount{{Source: "/m", Target: "/x", Kind: "dir", Readonly: true}}}, nil, nil},
		{"rw file mount", Plan{Mounts: []Mount{{Source: "/f", Target: "/x", Kind: "file"}}}, nil, []string{"/f"}},
		{"ro file mount", Plan{Mounts: []Mount{{Source: "/f", Target: "/x", Kind: "file", Readonly: true}}}, nil, nil},
		{"socket", Plan{Mounts: []Mount{{Source: "/s", Target: "/x", Kind: "socket"}}}, nil, nil},
		{"home once", Plan{PersistedHome: &PersistedHome{Name: "go", Path: "/h"}, Grants: []Grant{{Path: "/w", Write: true}},
			Mounts: []Mount{{Source: "/h", Target: "/home/u", Kind: "dir", Internal: true}, {Source: "/w", Target: "/y", Kind: "dir"}}},
			[]string{"/w", "/h"}, nil},
	} {
		if got := tc.plan.ScanRoots(); !reflect.DeepEqual(got, tc.roots) {
			t.Errorf("%s: ScanRoots %v, want %v", tc.name, got, tc.roots)
		}
		if got := tc.plan.ScanFiles(); !reflect.DeepEqual(got, tc.files) {
			t.Errorf("%s: ScanFiles %v, want %v", tc.name, got, tc.files)
		}
	}
}
