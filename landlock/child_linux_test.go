//go:build linux

package landlock

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// childEnv names the test that a re-executed test binary is running. Each
// kernel case runs in a fresh process, so that no domain leaks into the next
// case or into the test runner.
const childEnv = "ACBOX_LANDLOCK_CHILD"

// inChild runs body in a fresh copy of the test binary that runs only this
// test, and reports its outcome here: a failure or a skip in the child is a
// failure or a skip of this test.
func inChild(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		body(t)
		return
	}
	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(run, "/"), "-test.v", "-test.count=1")
	// The child's t.TempDir lives under ours, so nothing is left behind.
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("child test failed: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("skipped in child:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("child did not run the test:\n%s", out)
	}
	if testing.Verbose() {
		t.Logf("child:\n%s", out)
	}
}

// requireABI skips the test, with the reason, when the kernel lacks the ABI.
func requireABI(t *testing.T, want int) {
	t.Helper()
	abi, err := ABI()
	if err != nil {
		t.Skipf("needs Landlock ABI %d: %v", want, err)
	}
	if abi < want {
		t.Skipf("needs Landlock ABI %d, kernel has %d", want, abi)
	}
}

// onRestrictedThread restricts a fresh locked goroutine with r (strict) and
// runs body there. The goroutine never unlocks, so its thread dies with it.
// body may call t.Error but not t.Fatal.
func onRestrictedThread(t *testing.T, r Rules, body func()) Report {
	t.Helper()
	type result struct {
		rep Report
		err error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread()
		rep, err := RestrictThread(r, false)
		if err == nil {
			body()
		}
		done <- result{rep, err}
	}()
	res := <-done
	if res.err != nil {
		t.Fatalf("RestrictThread: %v", res.err)
	}
	if !res.rep.Enforced {
		t.Fatalf("RestrictThread reported Enforced false: %+v", res.rep)
	}
	return res.rep
}
