package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a fake home and project tree on the real file system:
//
//	root/home/u            the user's home (refused)
//	root/home/u/proj       a project (grantable)
//	root/home/u/proj/docs  nested
//	root/home/u/secret     protected via Host.Protect
//	root/home/u/link       symlink to proj (not canonical)
//	root/home/u/file       a regular file
//	root/var/state         acbox's state directory
type fixture struct {
	root string
	host Host
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(fixtureDir(t))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home", "u")
	for _, d := range []string{"proj/docs", "secret", "other"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "var", "state"), 0o700)
	os.Symlink(filepath.Join(home, "proj"), filepath.Join(home, "link"))
	os.WriteFile(filepath.Join(home, "file"), nil, 0o644)
	h := Host{UID: 1000, GID: 1000, User: "u", Home: home, Cwd: filepath.Join(home, "proj"), Memory: 24 << 30,
		StateDir: filepath.Join(root, "var", "state"), Protect: []string{filepath.Join(home, "secret")},
		Getenv: func(k string) (string, bool) {
			return map[string]string{"LANG": "de_DE.UTF-8", "SECRET": "s"}[k], k == "LANG" || k == "SECRET"
		}}
	return fixture{root: root, host: h}
}

// fixtureDir is a fresh directory outside /tmp where there is one: a
// host view shows its own /tmp, so a home or state directory under the
// host's /tmp is one the sandbox never shows (and masks need not hold).
func fixtureDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "acbox-policy-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestGrantRefusals(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	cases := []struct {
		name  string
		write []string
		read  []string
		want  string // substring of the error; "" means accepted
	}{
		{"project write", []string{home + "/proj"}, nil, ""},
		{"relative to cwd", []string{"."}, nil, ""},
		{"nested read in write", []string{home + "/proj"}, []string{home + "/proj/docs"}, ""},
		{"root", []string{"/"}, nil, "expose the whole of /"},
		{"tmp", nil, []string{"/tmp"}, "expose the whole of /tmp"},
		{"run", nil, []string{"/run"}, "expose"},
		{"proc subtree", nil, []string{"/proc/sys"}, "kernel and device trees"},
		{"proc", nil, []string{"/proc"}, "kernel and device trees"},
		{"dev", nil, []string{"/dev"}, "kernel and device trees"},
		{"sys", nil, []string{"/sys/kernel"}, "kernel and device trees"},
		{"home", nil, []string{home}, "home directory or a parent"},
		{"parent of home", nil, []string{filepath.Dir(home)}, "home directory or a parent"},
		{"protected", nil, []string{home + "/secret"}, "private path"},
		{"state dir", nil, []string{f.host.StateDir}, "private path"},
		{"contains state", nil, []string{f.root + "/var"}, "private path"},
		{"missing", nil, []string{home + "/nope"}, "does not exist"},
		{"file", nil, []string{home + "/file"}, "not a directory"},
		{"symlink", nil, []string{home + "/link"}, "not canonical"},
		{"symlink parent", nil, []string{home + "/link/docs"}, "not canonical"},
		{"write usr", []string{"/usr"}, nil, "system directories"},
		{"write inside etc", []string{"/etc/ssl"}, nil, "system directories"},
		{"read usr ok", nil, []string{"/usr/share"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Spec{Command: []string{"true"}, Access: Access{Read: c.read, Write: c.write}}
			_, err := Resolve(s, f.host)
			checkErr(t, err, c.want)
			if err != nil && !errors.Is(err, ErrRefused) {
				t.Errorf("error %v is not a refusal", err)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("accepted; want error containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

func TestCwd(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	cases := []struct {
		name, cwd, want, err string
	}{
		{"explicit inside", home + "/proj/docs", home + "/proj/docs", ""},
		{"explicit outside", home + "/other", "", "not inside any grant"},
		{"implicit inside", "", home + "/proj", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Resolve(Spec{Command: []string{"true"}, Cwd: c.cwd, Access: Access{Write: []string{home + "/proj"}}}, f.host)
			checkErr(t, err, c.err)
			if err == nil && p.Cwd != c.want {
				t.Fatalf("cwd %q, want %q", p.Cwd, c.want)
			}
		})
	}
	h := f.host
	h.Cwd = home + "/other"
	p, err := Resolve(Spec{Command: []string{"true"}, Access: Access{Write: []string{home + "/proj"}}}, h)
	if err != nil || p.Cwd != home {
		t.Fatalf("implicit cwd outside grants: got %v %v, want the private home", p, err)
	}
}

func TestPlanShape(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	s := Spec{
		Command: []string{"make"}, Access: Access{Write: []string{home + "/proj"}, Read: []string{home + "/proj/docs", home + "/proj"}},
		Env: map[string]string{"A": "1"}, PassEnv: []string{"SECRET", "ABSENT"},
		Tmpfs: []TmpfsSpec{{Target: "/cache", Size: "8MiB"}},
	}
	p, err := Resolve(s, f.host)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Grants) != 2 || !p.Grants[0].Write || p.Grants[1].Write || p.Grants[0].Path != home+"/proj" {
		t.Fatalf("grants %+v: want proj (write, deduplicated) before docs (read)", p.Grants)
	}
	env := strings.Join(p.Env, "\n")
	for _, want := range []string{"A=1", "SECRET=s", "LANG=de_DE.UTF-8", "HOME=" + home, "TMPDIR=/tmp", "USER=u", "PATH=" + DefaultPath} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "ABSENT") || strings.Contains(env, "PROXY") {
		t.Errorf("env has unexpected entries:\n%s", env)
	}
	if len(p.Tmpfs) != 3 || p.Tmpfs[0].Target != "/cache" || p.Tmpfs[0].Size != 8<<20 {
		t.Errorf("tmpfs %+v", p.Tmpfs)
	}
	if p.Network.Mode != "none" || p.Limits.Memory != DefaultMemory || p.Limits.Pids != DefaultPids {
		t.Errorf("defaults: %+v %+v", p.Network, p.Limits)
	}
}

func TestInvalidInput(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"no command", Spec{}, "no command"},
		{"backend", Spec{Command: []string{"x"}, Backend: "vm"}, "backend \"vm\""},
		{"net mode", Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Mode: "open"}}}, "open"},
		{"bad allow", Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Allow: &[]string{"a b"}}}}, "a b"},
		{"acbox env", Spec{Command: []string{"x"}, Env: map[string]string{"ACBOX_ACCESS": "{}"}}, "set by acbox"},
		{"tmpfs size", Spec{Command: []string{"x"}, Tmpfs: []TmpfsSpec{{Target: "/x", Size: "lots"}}}, "size"},
		{"tmpfs proc", Spec{Command: []string{"x"}, Tmpfs: []TmpfsSpec{{Target: "/proc/x"}}}, "tmpfs target"},
		{"allow with host", Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Mode: "host", Allow: &[]string{"example.com"}}}}, "applies only to the proxy"},
		{"allow with none", Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Mode: "none", Allow: &[]string{"example.com"}}}}, "applies only to the proxy"},
		{"mount the home", Spec{Command: []string{"x"}, Mounts: []MountSpec{{Source: f.host.Home, Target: "/h"}}}, "home directory"},
		{"mount a protected path", Spec{Command: []string{"x"}, Mounts: []MountSpec{{Source: filepath.Join(f.host.Home, "secret"), Target: "/s"}}}, "private path"},
		{"mount the state directory", Spec{Command: []string{"x"}, Mounts: []MountSpec{{Source: f.host.StateDir, Target: "/s", Readonly: RW(true)}}}, "private path"},
		{"mount at the broker socket", Spec{Command: []string{"x"}, Mounts: []MountSpec{{Source: filepath.Join(f.host.Home, "file"), Target: DelegateSocket}}}, "reserved"},
		{"ports outside host", Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{ConnectPorts: []uint16{80}}}}, "only to --net host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.spec, f.host)
			checkErr(t, err, c.want)
		})
	}
}

func TestProxyEnvAndAllowAny(t *testing.T) {
	f := newFixture(t)
	p, err := Resolve(Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Mode: "proxy"}}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Network.AllowAny || !strings.Contains(strings.Join(p.Env, " "), "HTTPS_PROXY=http://127.0.0.1:3128") {
		t.Fatalf("proxy mode without allow: %+v", p.Network)
	}
	p, err = Resolve(Spec{Command: []string{"x"}, Access: Access{Network: NetworkSpec{Allow: &[]string{}}}}, f.host)
	if err != nil || p.Network.AllowAny || p.Network.Mode != "proxy" {
		t.Fatalf("empty allow list must mean proxy with nothing allowed: %+v %v", p.Network, err)
	}
}

// TestRelativeProtectRefused: a private path (ACBOX_PRIVATE) that is not absolute is an
// error, not silently skipped.
func TestRelativeProtectRefused(t *testing.T) {
	t.Setenv("ACBOX_PRIVATE", "relative/secret")
	_, err := HostFromEnv()
	checkErr(t, err, "is not absolute")
	t.Setenv("ACBOX_PRIVATE", "~/secret"+string(filepath.ListSeparator)+"/srv/secret")
	h, err := HostFromEnv()
	checkErr(t, err, "")
	if n := len(h.Protect); n < 2 || !filepath.IsAbs(h.Protect[n-2]) || h.Protect[n-1] != "/srv/secret" {
		t.Errorf("protect list %v", h.Protect)
	}
}
