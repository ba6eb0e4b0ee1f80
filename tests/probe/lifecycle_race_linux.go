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
	swapper := exec.Command(r.Exe, append(r.runFlags(), "--write", x, "--cwd", x, "--", "sh", "-c",
		`while :; do mv y y.real && ln -s /etc y && rm y && mv y.real y; done`)...)
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
	counts := map[string]int{}
	for i := 0; i < 30; i++ {
		c := exec.Command(r.Exe, append(r.runFlags(), "--read", y, "--", "ls", y)...)
		out, _ := c.Output()
		code := c.ProcessState.ExitCode()
		switch {
		case strings.Contains(string(out), "passwd"):
			return life(id, expect, src, failf("launch %d listed /etc through the grant: %q", i, out))
		case code == 0 && !strings.Contains(string(out), "real-marker"):
			return life(id, expect, src, failf("launch %d ran but did not show the real directory: %q", i, out))
		}
		counts[fmt.Sprint(code)]++
	}
	return life(id, expect, src, passf("30 launches by exit status: %v (0: real directory, 125/126: refused)", counts))
}
