package nsjail

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// startReporting starts cmd (a re-run of this test binary as a child),
// waits up to 20 s for the one line it prints when it is ready, fails the
// test unless that line is want, and kills and reaps the child when the
// test ends. It returns the child's pid, for reading its /proc files.
func startReporting(t *testing.T, cmd *exec.Cmd, want string) int {
	t.Helper()
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() { s, _ := bufio.NewReader(out).ReadString('\n'); line <- s }()
	select {
	case s := <-line:
		if s != want+"\n" {
			t.Fatalf("child: %q", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the child did not report within 20 s")
	}
	return cmd.Process.Pid
}

// resolveFromRoot resolves spec for this host's caller, run from "/".
func resolveFromRoot(t *testing.T, spec policy.Spec) *policy.Plan {
	t.Helper()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	h.Cwd = "/"
	p, err := policy.Resolve(spec, h)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
