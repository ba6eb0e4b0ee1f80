package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSpecVersion: "version": 1 is the only schema version; absent means
// 1; anything else is a usage error naming the field "version".
func TestSpecVersion(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"absent", `{"command":["x"]}`, ""},
		{"one", `{"version":1,"command":["x"]}`, ""},
		{"two", `{"version":2,"command":["x"]}`, "version 2"},
		{"zero", `{"version":0,"command":["x"]}`, "version 0"},
		{"negative", `{"version":-1,"command":["x"]}`, "version -1"},
		{"string", `{"version":"1","command":["x"]}`, "version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec(strings.NewReader(c.in))
			checkErr(t, err, c.want)
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v: want a usage error", err)
			}
			if c.name != "string" && FieldOf(err) != "version" {
				t.Errorf("field %q, want version", FieldOf(err))
			}
		})
	}
	// A spec built in Go (flags, a profile, the broker) is held to the same.
	if _, err := Resolve(Spec{Version: 3, Command: []string{"x"}}, Host{}); FieldOf(err) != "version" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Resolve with version 3: %v", err)
	}
}

// TestAccessShape: the access JSON has the extension's shape for its keys:
// network.allow omitted for any public destination, [] for none, sorted
// otherwise, and no allow_any.
func TestAccessShape(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	list := func(s ...string) *[]string { return &s }
	for _, c := range []struct {
		name string
		net  NetworkSpec
		want string // the network object
	}{
		{"none", NetworkSpec{}, `{"mode":"none","allow":[]}`},
		{"proxy, any public", NetworkSpec{Mode: "proxy"}, `{"mode":"proxy"}`},
		{"proxy, none", NetworkSpec{Mode: "proxy", Allow: list()}, `{"mode":"proxy","allow":[]}`},
		{"proxy, list sorted", NetworkSpec{Mode: "proxy", Allow: list("b.example", "A.example:8443", "*.c.example")},
			`{"mode":"proxy","allow":["*.c.example","a.example:8443","b.example"]}`},
		{"host", NetworkSpec{Mode: "host", ConnectPorts: []uint16{443}}, `{"mode":"host","connect_ports":[443]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Resolve(Spec{Command: []string{"x"}, Access: Access{Read: []string{home + "/proj/docs"}, Write: []string{home + "/proj"}, Network: c.net}}, f.host)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"enforced":true,"backend":"native","read":["` + home + `/proj/docs"],"write":["` + home + `/proj"],"network":` + c.want + `}`
			if got := p.Access(true); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestAccessEnv: access_env adds names for the same JSON; a name of the
// wrong form, one acbox sets, or one env sets too is a usage error naming
// access_env[i].
func TestAccessEnv(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name  string
		names []string
		env   map[string]string
		want  string
	}{
		{"ok", []string{"AC_TEAMS_ACCESS", "_X1"}, nil, ""},
		{"repeated", []string{"A", "A"}, nil, ""},
		{"digit first", []string{"A", "1BAD"}, nil, "access_env[1]"},
		{"lower case", []string{"ac_teams"}, nil, "access_env[0]"},
		{"empty", []string{""}, nil, "access_env[0]"},
		{"equals", []string{"A=B"}, nil, "access_env[0]"},
		{"PATH", []string{"PATH"}, nil, "access_env[0]"},
		{"HOME", []string{"HOME"}, nil, "access_env[0]"},
		{"ACBOX_", []string{"ACBOX_ACCESS"}, nil, "access_env[0]"},
		{"ACBOX_ID", []string{"ACBOX_ID"}, nil, "access_env[0]"},
		{"proxy", []string{"HTTPS_PROXY"}, nil, "access_env[0]"},
		{"LC_ALL", []string{"LC_ALL"}, nil, "access_env[0]"},
		{"COLORTERM", []string{"COLORTERM"}, nil, "access_env[0]"},
		{"env too", []string{"AC_TEAMS_ACCESS"}, map[string]string{"AC_TEAMS_ACCESS": "{}"}, "access_env[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Resolve(Spec{Command: []string{"x"}, AccessEnv: c.names, Env: c.env}, f.host)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				vars := p.AccessVars(p.Access(true))
				if len(vars) != 1+len(slices.Compact(slices.Clone(c.names))) || !strings.HasPrefix(vars[0], "ACBOX_ACCESS={") || !strings.HasPrefix(vars[1], c.names[0]+"={") {
					t.Errorf("vars %q", vars)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || FieldOf(err) != c.want {
				t.Errorf("err %v field %q, want a usage error at %s", err, FieldOf(err), c.want)
			}
		})
	}
}

// TestForwardedEnv: the host's locale and colour variables reach the
// member as LANG and TERM do; other host variables do not.
func TestForwardedEnv(t *testing.T) {
	f := newFixture(t)
	host := map[string]string{"LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR.UTF-8", "LC_TIME": "en_GB.UTF-8", "COLORTERM": "truecolor", "LC_BOGUS": "x", "SECRET": "s"}
	f.host.Getenv = func(k string) (string, bool) { v, ok := host[k]; return v, ok }
	p, err := Resolve(Spec{Command: []string{"x"}}, f.host)
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(p.Env, "\n")
	for _, want := range []string{"LANG=de_DE.UTF-8", "LC_ALL=fr_FR.UTF-8", "LC_TIME=en_GB.UTF-8", "COLORTERM=truecolor", "TERM=dumb"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	for _, not := range []string{"SECRET", "LC_BOGUS"} {
		if strings.Contains(env, not) {
			t.Errorf("env has %s:\n%s", not, env)
		}
	}
}

// TestRelativeGrantsAgainstSpecCwd: a spec's relative grants resolve
// against its cwd when it names one (a relative cwd against the launch
// directory); without a cwd, and for grants the flags add, against the
// launch directory.
func TestRelativeGrantsAgainstSpecCwd(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home // the launch directory is home/proj
	for _, c := range []struct {
		name, spec  string
		flagWrite   string
		read, write string
	}{
		{"absolute cwd", `{"command":["x"],"cwd":"` + home + `/proj/docs","access":{"read":[".."],"write":["."]}}`, "", home + "/proj", home + "/proj/docs"},
		{"relative cwd", `{"command":["x"],"cwd":"docs","access":{"read":[".."],"write":["."]}}`, "", home + "/proj", home + "/proj/docs"},
		{"no cwd", `{"command":["x"],"access":{"read":["docs"],"write":["."]}}`, "", home + "/proj/docs", home + "/proj"},
		{"flag grant keeps the launch directory", `{"command":["x"],"cwd":"` + home + `/other","access":{"read":["."]}}`, ".", home + "/other", home + "/proj"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSpec(strings.NewReader(c.spec))
			if err != nil {
				t.Fatal(err)
			}
			if c.flagWrite != "" {
				s.Access.Write = append(s.Access.Write, c.flagWrite)
			}
			p, err := Resolve(s, f.host)
			if err != nil {
				t.Fatal(err)
			}
			var got [2][]string
			for _, g := range p.Grants {
				if g.Write {
					got[1] = append(got[1], g.Path)
				} else {
					got[0] = append(got[0], g.Path)
				}
			}
			if len(got[0]) != 1 || got[0][0] != c.read || len(got[1]) != 1 || got[1][0] != c.write {
				t.Errorf("read %v write %v, want %s %s", got[0], got[1], c.read, c.write)
			}
		})
	}
}

// TestConfigPrivateRenamed: the config's private paths are "private" and
// ACBOX_PRIVATE; the former names are refused with a pointer to the new.
func TestConfigPrivateRenamed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, `{"private": ["/srv/secret"]}`, 0o600)
	if cfg, err := LoadConfig(dir); err != nil || len(cfg.Private) != 1 || cfg.Private[0] != "/srv/secret" {
		t.Fatalf("private: %+v %v", cfg, err)
	}
	write(t, dir, `{"protect": ["/srv/secret"]}`, 0o600)
	_, err := LoadConfig(dir)
	checkErr(t, err, `"protect" is now "private"`)
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("want a usage error: %v", err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("ACBOX_PROTECT", "/srv/secret")
	_, err = HostFromEnv()
	checkErr(t, err, "ACBOX_PROTECT is now ACBOX_PRIVATE")
}

// TestSpecPrivate: a spec's private paths refuse grants that are, contain
// or lie inside them (125, field access.read[i]/access.write[i]), as the
// config's do, while a runtime mount from inside one stays allowed.
func TestSpecPrivate(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	priv := home + "/proj/docs" // the fixture's launch directory is home/proj
	mount := []MountSpec{{Source: priv}}
	for _, c := range []struct {
		name        string
		read, write []string
		mounts      []MountSpec
		private     []string
		field       string // "" accepted
	}{
		{"inside", []string{home + "/other", priv}, nil, nil, []string{priv}, "access.read[1]"},
		{"equal", []string{priv}, nil, nil, []string{priv}, "access.read[0]"},
		{"contains", nil, []string{home + "/proj"}, nil, []string{priv}, "access.write[0]"},
		{"beside", []string{home + "/other"}, nil, nil, []string{priv}, ""},
		{"mount from inside", nil, nil, mount, []string{priv}, ""},
		{"not there yet, through a link", []string{home + "/proj"}, nil, nil, []string{home + "/link/later"}, "access.read[0]"},
		{"mount containing", nil, nil, []MountSpec{{Source: home + "/proj"}}, []string{priv}, "mounts[0]"},
		{"relative", nil, nil, nil, []string{"docs"}, "private[0]"},
		{"without private", nil, []string{home + "/proj"}, nil, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Resolve(Spec{Command: []string{"x"}, Private: c.private, Mounts: c.mounts, Access: Access{Read: c.read, Write: c.write}}, f.host)
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(c.mounts) > 0 && (len(p.Mounts) != 1 || p.Mounts[0].Source != priv) {
					t.Errorf("mounts %+v", p.Mounts)
				}
				return
			}
			if FieldOf(err) != c.field {
				t.Fatalf("err %v field %q, want field %s", err, FieldOf(err), c.field)
			}
			if c.field != "private[0]" && !errors.Is(err, ErrRefused) {
				t.Errorf("want a refusal (125): %v", err)
			}
		})
	}
	// The host's own list is not changed by a spec's.
	if len(f.host.Protect) != 1 {
		t.Errorf("host private list changed: %v", f.host.Protect)
	}
}
