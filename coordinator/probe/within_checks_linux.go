package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// withinChildChecked: a child launched --within A, with A's write grant,
// whose member ignores SIGTERM and plants a git redirect once A's member
// has exited: the child's sandbox (not its acbox) is killed after the
// grace, so the child's own checks after the run move the redirect aside,
// and A ends after its child. Before, the child's acbox was SIGKILLed and
// the redirect outlived every check.
func (r *Runner) withinChildChecked() Line {
	const id = "life.within-child-checked"
	const expect = "a --within child that ignores SIGTERM and plants a git redirect after its requester's member exits has it moved aside by its own checks (exit 137), and the requester ends after it"
	top := filepath.Join(r.Fixture.Write, "within-git-"+randHex(4))
	proj := filepath.Join(top, "mid", "proj")
	defer removeGitFixture(top, proj)
	if err := makeGitFixture(proj); err != nil {
		return life(id, expect, withinSrc, errorf("fixture: %v", err))
	}
	before, err := gitState(proj)
	if err != nil {
		return life(id, expect, withinSrc, errorf("before the run: %v", err))
	}
	a, sid, err := r.startSandbox("the requester", append(r.runFlags(), "--write", top, "--cwd", proj, "--", "sh", "-c",
		`echo ready; until [ -e go ]; do sleep 0.1; done; touch leaddone`))
	if err != nil {
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	child, _, err := r.startSandbox("the child", append(r.runFlags(), "--within", sid, "--write", top, "--cwd", proj, "--", "sh", "-c",
		`trap '' TERM; echo ready; until [ -e leaddone ]; do sleep 0.1; done; sleep 1; echo 'gitdir: ../../evil' > src/.git; sleep 60; sleep 60`))
	if err != nil {
		endRequester(a, proj)
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	childAt, leadAt := endedAt(child), endedAt(a)
	if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
		a.Process.Kill()
		child.Process.Kill()
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	var ca, la time.Time
	for ca.IsZero() || la.IsZero() {
		select {
		case ca = <-childAt:
		case la = <-leadAt:
		case <-time.After(60 * time.Second):
			a.Process.Kill()
			child.Process.Kill()
			return life(id, expect, withinSrc, failf("the requester or its child still ran 60 s after the requester's member exited"))
		}
	}
	if c := child.ProcessState.ExitCode(); c != 137 {
		return life(id, expect, withinSrc, failf("the child exited %d, want 137 (its sandbox killed, its acbox not, so its checks ran)", c))
	}
	if o := judgeGit(proj, before); o.Result != Pass {
		return life(id, expect, withinSrc, o)
	}
	if la.Before(ca) {
		return life(id, expect, withinSrc, failf("the requester ended %v before its child: its checks did not wait for it", ca.Sub(la)))
	}
	return life(id, expect, withinSrc, passf("the child exited 137 with the redirect moved aside; the requester ended %v after it", la.Sub(ca).Round(time.Millisecond)))
}

// endedAt waits for c in the background and sends the time it exited.
func endedAt(c *exec.Cmd) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() { c.Wait(); at <- time.Now() }()
	return at
}
