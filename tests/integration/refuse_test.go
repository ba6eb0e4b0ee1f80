//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit statuses acbox documents for itself (coordinator/errors.go).
const (
	exitUsage         = 2   // malformed command line or spec
	exitRefused       = 125 // refused by policy
	exitCannotSandbox = 126 // the host could not provide a control
)

// TestRefusals: every refused request exits with the documented status, a
// message naming the subject, and runs nothing.
func TestRefusals(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		file := fx.file("plain-file", "x\n")
		link := filepath.Join(fx.root, "link")
		if err := os.Symlink(w, link); err != nil {
			t.Fatal(err)
		}
		os.Lchown(link, m.uid, m.gid)
		protected := fx.dir("w/secret")
		cases := []struct {
			name string
			args []string
			env  []string
			code int
			msg  string // in stderr
		}{
			{"write /", []string{"-w", "/"}, nil, exitRefused, "/"},
			{"read /", []string{"-r", "/"}, nil, exitRefused, "/"},
			{"home", []string{"-w", m.home}, nil, exitRefused, "home"},
			{"home read-only", []string{"-r", m.home}, nil, exitRefused, "home"},
			{"parent of home", []string{"-r", filepath.Dir(m.home)}, nil, exitRefused, filepath.Dir(m.home)},
			{"/tmp", []string{"-w", "/tmp"}, nil, exitRefused, "/tmp"},
			{"/tmp read-only", []string{"-r", "/tmp"}, nil, exitRefused, "/tmp"},
			{"/proc/x (missing)", []string{"-r", "/proc/x"}, nil, exitRefused, "/proc/x"},
			{"/proc/sys", []string{"-r", "/proc/sys"}, nil, exitRefused, "/proc/sys"},
			{"/dev", []string{"-r", "/dev"}, nil, exitRefused, "/dev"},
			{"/sys", []string{"-r", "/sys"}, nil, exitRefused, "/sys"},
			{"/run", []string{"-r", "/run"}, nil, exitRefused, "/run"},
			{"write /usr", []string{"-w", "/usr"}, nil, exitRefused, "/usr"},
			{"write /etc", []string{"-w", "/etc"}, nil, exitRefused, "/etc"},
			{"missing path", []string{"-w", filepath.Join(fx.root, "missing")}, nil, exitRefused, "does not exist"},
			{"file", []string{"-r", file}, nil, exitRefused, "not a directory"},
			{"symlink", []string{"-w", link}, nil, exitRefused, "symlink"},
			{"symlinked parent", []string{"-w", filepath.Join(link, "secret")}, nil, exitRefused, "symlink"},
			{"contains protected", []string{"-w", w}, []string{"ACBOX_PRIVATE=" + protected}, exitRefused, "private path"},
			{"inside protected", []string{"-w", protected}, []string{"ACBOX_PRIVATE=" + w}, exitRefused, "private path"},
			{"cwd outside grants", []string{"-w", w, "--cwd", fx.root}, nil, exitRefused, "--cwd"},
			{"tmpfs on /proc", []string{"--tmpfs", "/proc/x"}, nil, exitRefused, "tmpfs"},
			{"mount of /", []string{"--mount", "/:/x"}, nil, exitRefused, "mount"},
			{"mount onto /dev", []string{"--mount", file + ":/dev/x"}, nil, exitRefused, "mount"},
			{"unknown backend", []string{"--backend", "foo"}, nil, exitUsage, "foo"},
			{"unknown network", []string{"--net", "bogus"}, nil, exitUsage, "bogus"},
			{"allow with --net none", []string{"--net", "none", "--allow", "example.com"}, nil, exitUsage, "none"},
			{"bad tmpfs size", []string{"--tmpfs", "/x:lots"}, nil, exitUsage, "lots"},
			{"bad mount flag", []string{"--mount", "a:b:c:d"}, nil, exitUsage, "mount"},
			{"env ACBOX_", []string{"--env", "ACBOX_X=1"}, nil, exitUsage, "ACBOX_X"},
			{"pass-env ACBOX_", []string{"--pass-env", "ACBOX_PROTECT"}, nil, exitUsage, "ACBOX_PROTECT"},
			{"env without =", []string{"--env", "NOVALUE"}, nil, exitUsage, "NOVALUE"},
			{"unknown flag", []string{"--frobnicate"}, nil, exitUsage, "frobnicate"},
			{"tmpfs over the memory limit", []string{"--memory", "256MiB", "--tmpfs", "/big:64GiB"}, nil, exitRefused, "more than the memory limit of 256MiB"},
			{"tmpfs over the default limit", []string{"--tmpfs", "/big:2GiB"}, nil, exitRefused, "more than the memory limit of 2GiB"},
			{"tmpfs larger than the host", []string{"--memory", "64TiB", "--tmpfs", "/big:32TiB"}, nil, exitRefused, "more than this host's memory"},
			{"/tmp over the memory limit", []string{"--memory", "256MiB", "--tmpfs", "/tmp:256MiB"}, nil, exitRefused, "/tmp 256MiB"},
			{"tmpfs given twice", []string{"--tmpfs", "/x", "--tmpfs", "/x:8MiB"}, nil, exitUsage, "more than once"},
			{"memory too small", []string{"--memory", "2"}, nil, exitRefused, "at least 128MiB"},
		}
		for _, c := range cases {
			ran := filepath.Join(w, "ran-"+strings.NewReplacer("/", "_", " ", "_").Replace(c.name))
			args := append(append([]string{"run"}, c.args...), "--", "touch", ran)
			r := runBoxEnv(t, m, c.env, args...)
			if r.code != c.code {
				t.Errorf("%s: acbox %q exited %d, want %d\n%v", c.name, c.args, r.code, c.code, r)
			}
			if !strings.Contains(r.stderr, c.msg) || strings.TrimSpace(r.stderr) == "" {
				t.Errorf("%s: stderr does not explain the refusal (want %q in it): %q", c.name, c.msg, r.stderr)
			}
			if _, err := os.Lstat(ran); err == nil {
				t.Errorf("%s: the command ran although acbox refused", c.name)
			}
		}
	})
}

// TestSpecRefusals: a JSON spec is read strictly; each error names the JSON
// path and the status is 2 (malformed), and nothing runs.
func TestSpecRefusals(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		ran := filepath.Join(w, "ran")
		touch := `"command":["touch","` + ran + `"],"access":{"write":["` + w + `"]}`
		cases := []struct{ name, spec, msg string }{
			{"empty cwd", `{` + touch + `,"cwd":""}`, `cwd is ""`},
			{"repeated key", `{"command":["true"],` + touch + `}`, "command is given more than once"},
			{"wrong type", `{` + touch + `,"exclude":["/a",3]}`, "exclude[1]: want a string, got the number 3"},
			{"unknown deep", `{` + touch + `,"tmpfs":[{"target":"/x","sise":"1GiB"}]}`, `unknown field "sise" in tmpfs[0]`},
			{"another case", `{` + touch + `,"CWD":"` + w + `"}`, `unknown field "CWD"`},
		}
		for _, c := range cases {
			spec := fx.file("spec.json", c.spec)
			r := runBox(t, m, "run", "--spec", spec)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("%s: want exit %d and %q on stderr\n%v", c.name, exitUsage, c.msg, r)
			}
			for _, goish := range []string{"Go struct", "Go value", "[]string", "coordinator."} {
				if strings.Contains(r.stderr, goish) {
					t.Errorf("%s: the message names a Go type: %q", c.name, r.stderr)
				}
			}
			if _, err := os.Lstat(ran); err == nil {
				t.Errorf("%s: the command ran although acbox refused", c.name)
				os.Remove(ran)
			}
		}
	})
}
