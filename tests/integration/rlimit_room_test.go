//go:build integration

package integration

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestLimitAboveHardRlimit: a --pids or --memory that pid 1 could not set
// (above the caller's hard RLIMIT_NPROC or RLIMIT_DATA, which nothing in
// the sandbox may raise) is refused before anything starts, exit 125, with
// the figure to ask for instead. It used to fail in pid 1's setup, exit
// 126, "setrlimit nproc: operation not permitted". As the caller and, as
// root, as the unprivileged test user.
func TestLimitAboveHardRlimit(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for _, tc := range []struct{ ulimit, flag, want string }{
			{"ulimit -S -u 4000 && ulimit -H -u 4000", "--pids 4001", "ask for at most --pids 4000"},
			{"ulimit -S -d 1048576 && ulimit -H -d 1048576", "--memory 2GiB", "ask for at most --memory 1024MiB"},
		} {
			cmd := exec.Command("bash", "-c", tc.ulimit+` && exec "$0" run `+tc.flag+` -- sh -c "echo RAN"`, acboxBin)
			cmd.Dir = "/"
			cmd.Env = []string{"PATH=" + hostPath}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code != 125 || strings.Contains(out.String(), "RAN") || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("%s: exit %d, stdout %q, stderr %s; want 125 and %q", tc.flag, code, out.String(), errb.String(), tc.want)
			}
		}
	})
}
