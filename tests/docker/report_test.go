//go:build integration

package docker_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

type reportControls struct {
	PolicyDigest string `json:"policy_digest"`
	Controls     []struct {
		Name     string `json:"name"`
		Enforced bool   `json:"enforced"`
	} `json:"controls"`
}

func readReport(t *testing.T, path string) reportControls {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r reportControls
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// TestReportNamesNativeControls: the docker backend's enforcement report
// lists every control the native report lists, under the same names,
// enforced, and carries the same policy digest.
func TestReportNamesNativeControls(t *testing.T) {
	e := setup(t)
	_, rw := dirs(t)
	dock, native := filepath.Join(rw, "docker.json"), filepath.Join(rw, "native.json")
	if r := e.run(t, "", "-w", rw, "--report", dock, "--", "true"); r.code != 0 {
		t.Fatalf("docker: %+v", r)
	}
	cmd := exec.Command(e.bin, "run", "--no-tty", "-w", rw, "--report", native, "--", "true")
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("native: %v\n%s", err, out)
	}
	d, n := readReport(t, dock), readReport(t, native)
	if d.PolicyDigest == "" || d.PolicyDigest != n.PolicyDigest {
		t.Errorf("policy digest: docker %q, native %q", d.PolicyDigest, n.PolicyDigest)
	}
	enforced := map[string]bool{}
	for _, c := range d.Controls {
		enforced[c.Name] = c.Enforced
	}
	for _, c := range n.Controls {
		if c.Name == "landlock" {
			continue // not available in containers (docs/backends.md)
		}
		if e, ok := enforced[c.Name]; !ok || e != c.Enforced {
			t.Errorf("control %s: native enforced=%v, docker listed=%v enforced=%v", c.Name, c.Enforced, ok, e)
		}
	}
}
