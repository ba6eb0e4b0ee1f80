package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// gitTwoSandboxes: two sandboxes over one repository. A's member plants
// src/deep/.git and waits; B launches while it is there (so B records it),
// A's check moves it aside, B's member renames it back. B's check must move
// it aside again: git run from src/deep would use the member's repository.
func (r *Runner) gitTwoSandboxes() Outcome {
	top := filepath.Join(r.Fixture.Write, "git-"+randHex(4))
	proj := filepath.Join(top, "mid", "proj")
	defer removeGitFixture(top, proj)
	if err := makeGitFixture(proj); err != nil {
		return errorf("fixture: %v", err)
	}
	before, err := gitState(proj)
	if err != nil {
		return errorf("before the run: %v", err)
	}
	run := func(script string) *exec.Cmd {
		return exec.Command(r.Exe, append(r.runFlags(), "--write", r.Fixture.Write, "--cwd", proj, "--", "sh", "-c", script)...)
	}
	a := run(mkrepo + `mkrepo src/deep/.git && echo planted; sleep 4`)
	if err := a.Start(); err != nil {
		return errorf("sandbox A: %v", err)
	}
	defer a.Wait()
	for i := 0; i < 200; i++ {
		if _, err := os.Lstat(filepath.Join(proj, "src/deep/.git/config")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	b := run(`for i in $(seq 300); do q=$(ls -d src/deep/.git.acbox-quarantine-* 2>/dev/null) && break; sleep 0.1; done; mv "$q" src/deep/.git && echo renamed`)
	var errb strings.Builder
	b.Stderr = &errb
	out, _ := b.Output()
	a.Wait()
	if !strings.Contains(string(out), "renamed") {
		return errorf("B's member could not put back what A's check moved aside: %s", strings.TrimSpace(errb.String()))
	}
	if o := judgeGit(proj, before); o.Result != Pass {
		return o
	}
	return passf("acbox (B) said: %s", firstLines(errb.String(), 1))
}
