package seccomp

import (
	"os/exec"
	"strings"
	"testing"
)

// This package runs in every sandbox's pid 1, so it must not bring
// libseccomp or cgo into the acbox binary: the filter is compiled at
// development time (package compile) and embedded.
func TestNoCgoAtRunTime(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list dependencies:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for dep := range strings.FieldsSeq(string(out)) {
		if dep == "runtime/cgo" || strings.Contains(dep, "libseccomp") || strings.HasSuffix(dep, "/seccomp/compile") {
			t.Errorf("package seccomp depends on %s; keep libseccomp in coordinator/seccomp/compile", dep)
		}
	}
}
