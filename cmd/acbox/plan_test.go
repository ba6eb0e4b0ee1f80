package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFlagsAndSpecSamePlan: the command line and the JSON launch spec are
// two spellings of one request and must resolve to the same plan.
func TestFlagsAndSpecSamePlan(t *testing.T) {
	cfg := t.TempDir()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	w, r := filepath.Join(root, "w"), filepath.Join(root, "r")
	os.MkdirAll(w, 0o755)
	os.MkdirAll(r, 0o755)
	spec := filepath.Join(cfg, "spec.json")
	body := `{"command":["make","test"],"cwd":"` + w + `","access":{"read":["` + r + `"],"write":["` + w + `"],` +
		`"network":{"mode":"proxy","allow":["api.example.com","*.example.org:8443"]}},` +
		`"tmpfs":[{"target":"/cache","size":"8MiB"}],"env":{"A":"1"},"limits":{"memory":"1GiB","pids":64},` +
		`"mounts":[{"source":"` + r + `","target":"/mnt/acbox-r"},{"source":"` + r + `","target":"/mnt/acbox-rw","readonly":false}]}`
	os.WriteFile(spec, []byte(body), 0o600)
	fromSpec, errs, code := runMain(t, cfg, "plan", "--no-tty", "--spec", spec)
	if code != 0 {
		t.Fatalf("plan --spec: %d %s", code, errs)
	}
	fromFlags, errf, code := runMain(t, cfg, "plan", "--no-tty", "--read", r, "--write", w, "--cwd", w,
		"--allow", "api.example.com", "--allow", "*.example.org:8443", "--tmpfs", "/cache:8MiB", "--env", "A=1",
		"--memory", "1GiB", "--pids", "64", "--mount", r+":/mnt/acbox-r", "--mount", r+":/mnt/acbox-rw:rw", "--", "make", "test")
	if code != 0 {
		t.Fatalf("plan with flags: %d %s", code, errf)
	}
	if canon(t, fromSpec) != canon(t, fromFlags) {
		t.Fatalf("the plans differ:\nspec:  %s\nflags: %s", fromSpec, fromFlags)
	}
}

// canon re-encodes a plan without the host-dependent expected report.
func canon(t *testing.T, s string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "expected_report")
	b, _ := json.Marshal(m)
	return string(b)
}
