//go:build integration

package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSetupFailureNamesTheStep: when pid 1's setup fails (here: /proc has
// an over-mount, as in a default Docker container, so a new proc cannot be
// mounted), acbox reports that step and its remedy, not a later error of
// its own (as root on cgroup v1, placing the dead helper in its cgroup
// failed with ESRCH and that message won). Repeated: it was a race.
func TestSetupFailureNamesTheStep(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to over-mount /proc in a private mount namespace")
	}
	for i := 0; i < 8; i++ {
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
			`mount --bind /dev/null /proc/uptime && exec "$0" run -- true`, acboxBin)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 126 || !strings.Contains(string(out), "a /proc with over-mounts") {
			t.Fatalf("run %d: %v\n%s", i, err, out)
		}
	}
}
