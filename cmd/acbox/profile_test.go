package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMain runs the CLI with a config directory of the test's own.
func runMain(t *testing.T, cfg string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("ACBOX_ACCESS", "") // restored after the test; absent during it,
	os.Unsetenv("ACBOX_ACCESS")  // since a set ACBOX_ACCESS refuses profiles
	var out, errb bytes.Buffer
	code := Main(args, os.Stdin, &out, &errb)
	return out.String(), errb.String(), code
}

func TestProfileCommands(t *testing.T) {
	cfg := t.TempDir()
	dir := filepath.Join(cfg, "acbox", "profiles")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "dev.json"), []byte(`{"command":["make"],"view":"host","exclude":["/usr/share"]}`), 0o600)
	os.WriteFile(filepath.Join(dir, "loose.json"), []byte(`{"command":["make"]}`), 0o600)
	os.Chmod(filepath.Join(dir, "loose.json"), 0o622) // group-writable: a launch refuses it
	spec := filepath.Join(cfg, "spec.json")
	os.WriteFile(spec, []byte(`{"command":["x"]}`), 0o600)
	cases := []struct {
		name string
		args []string
		code int
		want string // in stdout when code is 0, else in stderr
	}{
		{"list", []string{"profile", "list"}, 0, "dev\n"},
		{"list marks unusable", []string{"profile", "list"}, 0, "loose\tunusable: "},
		{"unusable refused", []string{"plan", "--profile", "loose"}, 125, "group- or world-writable"},
		{"show", []string{"profile", "show", "dev"}, 0, `"view": "host"`},
		{"plan from profile", []string{"plan", "--profile", "dev"}, 0, `"/usr/share"`},
		{"flags add to it", []string{"plan", "--profile", "dev", "--exclude", "/usr/lib", "--", "true"}, 0, `"/usr/lib"`},
		{"flag view wins", []string{"plan", "--profile", "dev", "--view", "grants"}, 0, `"view": "grants"`},
		{"unknown profile", []string{"plan", "--profile", "nope"}, 2, "not found"},
		{"bad name", []string{"profile", "show", "a/b"}, 2, "profile name"},
		{"with spec", []string{"plan", "--profile", "dev", "--spec", spec}, 2, "cannot be combined"},
		{"unknown view", []string{"plan", "--view", "all", "--", "true"}, 2, `view "all"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runMain(t, cfg, c.args...)
			got := out
			if c.code != 0 {
				got = errs
			}
			if code != c.code || !strings.Contains(got, c.want) {
				t.Fatalf("acbox %v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errs, c.code, c.want)
			}
		})
	}
}
