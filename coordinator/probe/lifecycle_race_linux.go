package probe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// crossSandboxSwap: sandbox A has a write grant of a directory and keeps
// swapping its subdirectory y for a symlink to /etc and back, while
// sandbox B is launched again and again with y as its read grant. Every
// launch of B must either refuse (125, 126) or show the real y; none may
// show /etc. This is the cross-sandbox form of the grant swap: grants are
// bound by descriptor, so no sandbox's writes can redirect another's mount.
func (r *Runner) crossSandboxSwap() Line {
	const id, expect = "life.cross-sandbox-swap", "while one sandbox swaps a directory for a symlink to /etc, another sandbox granted that directory never sees /etc (it runs on the real directory or is refused)"
	const src = "acbox design (grants bound by fd); CVE-2019-19921 (runc mount-path races)"
	x := filepath.Join(r.Fixture.Write, "race-"+randHex(4))
	y := filepath.Join(x, "y")
	if err := os.MkdirAll(y, 0o755); err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	os.WriteFile(filepath.Join(y, "real-marker"), []byte("real\n"), 0o644)
	// The sleeps give each state time to be launched against: y real half
	// of the time, a symlink to /etc the other half, and the swaps between.
	// A launch takes tens of milliseconds from plan to the helper's clone
	// of the grant (more with the checks added since, and on a loaded
	// machine), and a docker launch a few hundred, so each state lasts
	// about that long: shorter, and no launch ever sees y real at both.
	hold := "0.05"
	if r.docker() {
		hold = "0.5"
	}
	swapper := exec.Command(r.Exe, append(r.runFlags(), "--write", x, "--cwd", x, "--", "sh", "-c",
		`while :; do mv y y.real && ln -s /etc y; sleep `+hold+`; rm y && mv y.real y; sleep `+hold+`; done`)...)
	if err := swapper.Start(); err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	// Stopped with SIGTERM, so acbox removes its sandbox (or container)
	// before exiting and leaves nothing for the leftovers check.
	defer func() {
		swapper.Process.Signal(syscall.SIGTERM)
		t := time.AfterFunc(10*time.Second, func() { swapper.Process.Kill() })
		swapper.Wait()
		t.Stop()
	}()
	time.Sleep(200 * time.Millisecond)
	// A refused launch ends in milliseconds, so 40 of them could all fall
	// in one state of y; pacing them a quarter of a state apart spreads
	// them over several swaps.
	pace := 15 * time.Millisecond
	if r.docker() {
		pace = 125 * time.Millisecond
	}
	return life(id, expect, src, r.launchDuringSwaps(y, 40, pace))
}

// launchDuringSwaps launches n sandboxes granted y while y is swapped. It
// fails on any view of /etc, on a run without the real directory, and on a
// refusal that does not name y; it passes only when both the real
// directory and a refusal were seen, so the race was really run.
func (r *Runner) launchDuringSwaps(y string, n int, pace time.Duration) Outcome {
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		time.Sleep(pace)
		c := exec.Command(r.Exe, append(r.runFlags(), "--read", y, "--", "ls", y)...)
		var errb strings.Builder
		c.Stderr = &errb
		out, _ := c.Output()
		code := c.ProcessState.ExitCode()
		switch {
		case strings.Contains(string(out), "passwd"):
			return failf("launch %d listed /etc through the grant: %q", i, out)
		case code == 0 && !strings.Contains(string(out), "real-marker"):
			return failf("launch %d ran but did not show the real directory: %q", i, out)
		case code != 0 && (code != 125 && code != 126 || !strings.Contains(errb.String(), y)):
			return failf("launch %d ended with status %d, not a refusal naming the grant: %s", i, code, errb.String())
		}
		counts[fmt.Sprint(code)]++
	}
	if counts["0"] == 0 || counts["0"] == n {
		return skipf("the race was not exercised (%d launches by exit status: %v): the swapper did not alternate", n, counts)
	}
	return passf("%d launches by exit status: %v (0: the real directory; 125/126: refused, naming the grant)", n, counts)
}
