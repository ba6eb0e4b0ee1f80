package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// profileHost is the resolve fixture with a config directory holding
// profiles/ (0700, the caller's own) and PROJ=<home>/proj in the environment.
func profileHost(t *testing.T) Host {
	f := newFixture(t)
	h := f.host
	h.UID = os.Getuid()
	h.ConfigDir = filepath.Join(f.root, "config", "acbox")
	if err := os.MkdirAll(filepath.Join(h.ConfigDir, "profiles"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PROJ": h.Home + "/proj"}
	h.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return h
}

func writeProfile(t *testing.T, h Host, name, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(ProfileDir(h), name+".json")
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

func TestLoadProfileExpands(t *testing.T) {
	h := profileHost(t)
	writeProfile(t, h, "dev", `{"command":["make"],"view":"host","access":{"write":["${PROJ}"],"read":["~/proj/docs"]},"exclude":["~/other"],"env":{"A":"${PROJ}"}}`, 0o600)
	p, err := LoadProfile("dev", h)
	if err != nil {
		t.Fatal(err)
	}
	want := Access{Write: []string{h.Home + "/proj"}, Read: []string{h.Home + "/proj/docs"}}
	if !reflect.DeepEqual(p.Spec.Access, want) || p.Spec.Exclude[0] != h.Home+"/other" || p.Spec.View != "host" {
		t.Fatalf("expanded spec %+v", p.Spec)
	}
	if p.Spec.Env["A"] != "${PROJ}" {
		t.Errorf("env values must be taken as written, got %q", p.Spec.Env["A"])
	}
	plan, err := Resolve(p.Spec, h)
	if err != nil || p.Check(plan) != nil {
		t.Fatalf("resolving the profile: %v %v", err, p.Check(plan))
	}
}

func TestProfileRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, h *Host) string // returns the profile name
		want  string
	}{
		{"bad name", func(t *testing.T, h *Host) string { return "../x" }, "profile name"},
		{"dotted name", func(t *testing.T, h *Host) string { return "a.b" }, "profile name"},
		{"empty name", func(t *testing.T, h *Host) string { return "" }, "profile name"},
		{"unknown", func(t *testing.T, h *Host) string { return "nope" }, "not found"},
		{"unknown field", func(t *testing.T, h *Host) string {
			writeProfile(t, *h, "p", `{"acess":{}}`, 0o600)
			return "p"
		}, `unknown field "acess"`},
		{"unset variable", func(t *testing.T, h *Host) string {
			writeProfile(t, *h, "p", `{"access":{"read":["${NOPE}/src"]}}`, 0o600)
			return "p"
		}, "${NOPE} is not set"},
		{"group writable", func(t *testing.T, h *Host) string {
			writeProfile(t, *h, "p", `{}`, 0o620)
			return "p"
		}, "group- or world-writable"},
		{"world writable dir", func(t *testing.T, h *Host) string {
			os.Chmod(ProfileDir(*h), 0o777)
			return "p"
		}, "group- or world-writable"},
		{"not owned", func(t *testing.T, h *Host) string {
			writeProfile(t, *h, "p", `{}`, 0o600)
			h.UID++
			return "p"
		}, "not owned by you"},
		{"symlink", func(t *testing.T, h *Host) string {
			real := writeProfile(t, *h, "real", `{}`, 0o600)
			os.Symlink(real, filepath.Join(ProfileDir(*h), "p.json"))
			return "p"
		}, "is a symlink"},
		{"inside a sandbox", func(t *testing.T, h *Host) string {
			writeProfile(t, *h, "p", `{}`, 0o600)
			h.Getenv = func(k string) (string, bool) { return "{}", k == "ACBOX_ACCESS" }
			return "p"
		}, "not read inside a sandbox"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := profileHost(t)
			name := c.setup(t, &h)
			_, err := LoadProfile(name, h)
			checkErr(t, err, c.want)
		})
	}
}

// A profile can never name a write grant that holds it: the config
// directory is protected, and Check refuses it even when a symlinked
// config directory hides that from the grant check.
func TestProfileInsideWriteGrant(t *testing.T) {
	h := profileHost(t)
	writeProfile(t, h, "p", `{"command":["x"],"access":{"write":["`+h.ConfigDir+`"]}}`, 0o600)
	p, err := LoadProfile("p", h)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(p.Spec, h)
	checkErr(t, err, "private path")

	plan := &Plan{Grants: []Grant{{Path: filepath.Dir(h.ConfigDir), Write: true}}}
	checkErr(t, p.Check(plan), "inside the write grant")
	plan.Grants[0].Write = false
	checkErr(t, p.Check(plan), "")
}

func TestListProfiles(t *testing.T) {
	h := profileHost(t)
	for _, n := range []string{"b", "a-1", "bad.name"} {
		writeProfile(t, h, n, `{}`, 0o600)
	}
	os.WriteFile(filepath.Join(ProfileDir(h), "notes.txt"), nil, 0o600)
	got, err := ListProfiles(h)
	if err != nil || strings.Join(got, ",") != "a-1,b" {
		t.Fatalf("ListProfiles = %v, %v; want a-1,b", got, err)
	}
}

func FuzzExpandPath(f *testing.F) {
	for _, s := range []string{"~/x", "${PROJ}/src", "${", "$${PROJ}}", "${NOPE}", "/a/${PROJ}${PROJ}", "~"} {
		f.Add(s)
	}
	h := Host{Home: "/home/u", Getenv: func(k string) (string, bool) { return "/p", k == "PROJ" }}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := expandPath(s, h)
		if err == nil && strings.Contains(out, "${") && !strings.Contains(s, "${") {
			t.Fatalf("expandPath(%q) = %q introduced ${", s, out)
		}
		if err == nil && varRE().MatchString(out) && !strings.Contains(s, "/p") {
			t.Fatalf("expandPath(%q) = %q left a variable unexpanded", s, out)
		}
	})
}
