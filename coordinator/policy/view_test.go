package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viewFixture adds credentials to the resolve fixture's home:
//
//	home/u/.ssh                   a directory
//	home/u/.netrc                 a file
//	home/u/.aws -> root/data/aws  a symlink: the real path is masked
//	home/u/.cargo/credentials.toml  matched by the glob
func viewFixture(t *testing.T) fixture {
	f := newFixture(t)
	home := f.host.Home
	for _, d := range []string{".ssh", ".cargo", "../../data/aws"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(home, ".cargo", "credentials.toml"), []byte("x"), 0o600)
	if err := os.Symlink(filepath.Join(f.root, "data", "aws"), filepath.Join(home, ".aws")); err != nil {
		t.Fatal(err)
	}
	return f
}

func maskPaths(p *Plan) map[string]Mask {
	out := map[string]Mask{}
	for _, m := range p.Masks {
		out[m.Path] = m
	}
	return out
}

func TestParseView(t *testing.T) {
	for in, want := range map[string]string{"": ViewGrants, "grants": ViewGrants, "host": ViewHost, "Host": "", "none": "", "all": ""} {
		got, err := ParseView(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("ParseView(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestHostViewMasks(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	p, err := Resolve(Spec{Command: []string{"x"}, View: ViewHost, Exclude: []string{home + "/other"}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	ms := maskPaths(p)
	want := map[string]string{
		home + "/.ssh": "dir", home + "/.netrc": "file", f.root + "/data/aws": "dir",
		home + "/.cargo/credentials.toml": "file", home + "/other": "dir", home + "/secret": "dir",
		f.host.StateDir: "dir",
	}
	for path, kind := range want {
		if m, ok := ms[path]; !ok || m.Kind != kind || m.Ino == 0 {
			t.Errorf("mask %s: got %+v, want kind %s with an inode", path, m, kind)
		}
	}
	if ms[f.root+"/data/aws"].Via != home+"/.aws" {
		t.Errorf("symlinked credential: via %q, want %s/.aws", ms[f.root+"/data/aws"].Via, home)
	}
	if m, ok := ms[home+"/.gnupg"]; !ok || m.Kind != "absent" || m.Held != HeldView {
		t.Errorf("an absent credential path is not held for the run: %+v", m)
	}
	if _, ok := ms["/run/user/1000"]; ok {
		t.Error("/run/user/1000 is listed although /run covers it")
	}
}

func TestHostViewShape(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	p, err := Resolve(Spec{Command: []string{"x"}, View: ViewHost, Access: Access{Write: []string{home + "/proj"}}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	if p.View != ViewHost || p.System != nil {
		t.Errorf("view %q system %v: want host and no system clones", p.View, p.System)
	}
	if len(p.Tmpfs) != 1 || p.Tmpfs[0].Target != "/tmp" {
		t.Errorf("tmpfs %+v: want only the private /tmp (home is the real one, read-only)", p.Tmpfs)
	}
	if !strings.Contains(strings.Join(p.Env, " "), "HOME="+home) {
		t.Errorf("HOME is not the real home: %v", p.Env)
	}
}

func TestGrantsViewMasksOnlyInsideGrants(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	// ~/.config would hold acbox's config directory (refused as a grant);
	// ~/.cargo holds a credential matched by a pattern.
	docs, gh := filepath.Join(home, "proj", "docs"), filepath.Join(home, ".cargo", "credentials.toml")
	p, err := Resolve(Spec{Command: []string{"x"}, Access: Access{Read: []string{home + "/proj", home + "/.cargo"}}, Exclude: []string{docs}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	ms := maskPaths(p)
	if _, ok := ms[docs]; !ok {
		t.Errorf("exclude inside a grant is not masked: %+v", p.Masks)
	}
	if _, ok := ms[gh]; !ok {
		t.Errorf("credential inside a grant is not masked: %+v", p.Masks)
	}
	if _, ok := ms[home+"/.ssh"]; ok {
		t.Errorf("the grants view mounts a mask the member cannot see anyway: %+v", p.Masks)
	}
	if p.View != ViewGrants || len(p.Tmpfs) != 2 {
		t.Errorf("grants view changed: view %q tmpfs %+v", p.View, p.Tmpfs)
	}
}

func TestViewRefusals(t *testing.T) {
	f := viewFixture(t)
	home := f.host.Home
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"unknown view", Spec{View: "everything"}, `view "everything"`},
		{"grant inside credential", Spec{Access: Access{Read: []string{home + "/.ssh"}}}, "masked in every sandbox"},
		{"grant inside exclude", Spec{Access: Access{Read: []string{home + "/proj/docs"}}, Exclude: []string{home + "/proj"}}, "masked in every sandbox"},
		{"exclude root", Spec{View: ViewHost, Exclude: []string{"/"}}, "hide everything"},
		{"exclude proc", Spec{View: ViewHost, Exclude: []string{"/proc/1"}}, "its own /proc"},
		{"exclude missing", Spec{View: ViewHost, Exclude: []string{home + "/nope"}}, "does not exist"},
		{"host tmpfs target missing", Spec{View: ViewHost, Tmpfs: []TmpfsSpec{{Target: home + "/nope"}}}, "must already exist"},
		{"host cwd masked", Spec{View: ViewHost, Cwd: home + "/.ssh"}, "masked or private"},
		{"host docker", Spec{View: ViewHost, Backend: "docker"}, "docker backend has no host view"},
		{"mount into mask", Spec{View: ViewHost, Mounts: []MountSpec{{Source: home + "/file", Target: home + "/.ssh/f"}}}, "inside the masked path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Command = []string{"x"}
			_, err := Resolve(c.spec, f.host)
			checkErr(t, err, c.want)
		})
	}
}

func TestHostViewCwd(t *testing.T) {
	// Outside /tmp, which the host view replaces with a private tmpfs.
	root, err := os.MkdirTemp("/var/tmp", "acbox-view-test-")
	if err != nil {
		t.Skip("needs a directory outside /tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home := filepath.Join(root, "home")
	for _, d := range []string{"other", ".ssh"} {
		os.MkdirAll(filepath.Join(home, d), 0o700)
	}
	f := fixture{root: root, host: Host{UID: 1000, User: "u", Home: home}}
	cases := []struct{ name, launch, cwd, want string }{
		{"launch dir outside any grant", home + "/other", "", home + "/other"},
		{"explicit outside any grant", home, home + "/other", home + "/other"},
		{"launch dir masked falls back to home", home + "/.ssh", "", home},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := f.host
			h.Cwd = c.launch
			p, err := Resolve(Spec{Command: []string{"x"}, View: ViewHost, Cwd: c.cwd}, h)
			if err != nil || p.Cwd != c.want {
				t.Fatalf("cwd %v %v, want %s", p, err, c.want)
			}
		})
	}
}

func TestConfigDirIsProtected(t *testing.T) {
	f := viewFixture(t)
	h := f.host
	h.ConfigDir = filepath.Join(h.Home, "proj", "docs")
	_, err := Resolve(Spec{Command: []string{"x"}, Access: Access{Write: []string{h.Home + "/proj"}}}, h)
	checkErr(t, err, "private path")
}
