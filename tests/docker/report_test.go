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
		Name      string `json:"name"`
		Requested bool   `json:"requested"`
		Enforced  bool   `json:"enforced"`
		Why       string `json:"why"`
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
		if notInContainers[c.Name] && (c.Requested || c.Enforced || c.Why == "") {
			t.Errorf("control %s: docker must list it as neither requested nor enforced, with the reason; got %+v", c.Name, c)
		}
	}
	for _, c := range n.Controls {
		if notInContainers[c.Name] {
			if _, ok := enforced[c.Name]; !ok {
				t.Errorf("control %s: docker's report does not name it", c.Name)
			}
			continue
		}
		if e, ok := enforced[c.Name]; !ok || e != c.Enforced {
			t.Errorf("control %s: native enforced=%v, docker listed=%v enforced=%v", c.Name, c.Enforced, ok, e)
		}
	}
}

// notInContainers are the native controls the docker backend cannot apply
// (docs/backends.md): Landlock, the per-user counter caps, which need a
// user namespace of the sandbox's own, and the System V IPC caps, which
// the container's memory cgroup stands in for.
var notInContainers = map[string]bool{"landlock": true, "user_counters": true, "ipc_limits": true}
