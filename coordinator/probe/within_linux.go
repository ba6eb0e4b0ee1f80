package probe

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Lifecycle scenarios of `acbox run --within ID` from outside any sandbox
// (README "Nested launches"; docs/security.md "Trusting the registry for
// --within"): the launch is held to ID's recorded plan, and the child ends
// with ID.

const withinSrc = "README Nested launches; docs/security.md Trusting the registry for --within"

// refusal is how one `acbox run` ended: its status, and the field and
// message of its refused event ("" when it ran).
type refusal struct {
	status         int
	field, message string
}

func (f refusal) String() string {
	if f.field == "" && f.message == "" {
		return fmt.Sprintf("exit %d", f.status)
	}
	return fmt.Sprintf("exit %d, field %s: %s", f.status, f.field, f.message)
}

// tryRun runs `acbox run` (on the runner's backend) with args and reads
// its refused event from --status-fd.
func (r *Runner) tryRun(args ...string) (refusal, error) {
	ev, err := os.CreateTemp("", "acbox-probe-events-")
	if err != nil {
		return refusal{}, err
	}
	defer os.Remove(ev.Name())
	defer ev.Close()
	full := append(r.runFlags(), "--status-fd", "3")
	c := exec.Command(r.Exe, append(full, args...)...)
	c.ExtraFiles = []*os.File{ev}
	code, err := status(c, 60*time.Second)
	if err != nil {
		return refusal{}, err
	}
	out := refusal{status: code}
	ev.Seek(0, 0)
	sc := bufio.NewScanner(ev)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Event, Message string
			Field          *string
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event == "refused" {
			out.message = e.Message
			if e.Field != nil {
				out.field = *e.Field
			}
		}
	}
	return out, nil
}

// requester starts a sandbox with a read grant of dir only, whose member
// prints ready and runs until dir/go exists; it returns the command and
// the sandbox's id.
func (r *Runner) requester(dir string) (*exec.Cmd, string, error) {
	script := `echo ready; until [ -e ` + filepath.Join(dir, "go") + ` ]; do sleep 0.1; done`
	return r.startSandbox("the requester", append(r.runFlags(), "--read", dir, "--cwd", dir, "--", "sh", "-c", script))
}

// startSandbox runs acbox with args, waits for its member to print ready
// and returns the command with the sandbox's id, from its started event.
func (r *Runner) startSandbox(who string, args []string) (*exec.Cmd, string, error) {
	c := exec.Command(r.Exe, args...)
	c.Stderr = r.Stderr
	id, err := withEvents(c)
	if err != nil {
		return nil, "", err
	}
	if err := startReady(c); err != nil {
		return nil, "", err
	}
	sid, err := id()
	if err != nil || sid == "" {
		c.Process.Kill()
		c.Wait()
		return nil, "", fmt.Errorf("no started event from %s: %w", who, err)
	}
	return c, sid, nil
}

// endRequester lets the requester's member exit and waits for its acbox.
func endRequester(c *exec.Cmd, dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		c.Process.Kill()
		c.Wait()
		return err
	}
	_, err := status(c, 20*time.Second)
	return err
}

// withinDir makes a fresh directory for one --within scenario, with a
// subdirectory sub, beside which other lies outside it.
func (r *Runner) withinDir() (dir, other string, err error) {
	base := filepath.Join(r.Fixture.Write, "within-"+randHex(4))
	dir, other = filepath.Join(base, "a"), filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(dir, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	return dir, other, nil
}

// withinWider: while A (a read grant only) runs, `acbox run --within A`
// asking to write where A reads, or to read outside A, is refused (125,
// the refused event naming the grant); a narrower child runs.
func (r *Runner) withinWider() Line {
	const id = "life.within-wider"
	const expect = "`acbox run --within A` wider than A (write where A reads, a read outside A) is refused (125, field access.write[0] / access.read[0]); a narrower one runs"
	dir, other, err := r.withinDir()
	if err != nil {
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	a, sid, err := r.requester(dir)
	if err != nil {
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	o := r.withinCases(sid, dir, other)
	if err := endRequester(a, dir); err != nil && o.Result == Pass {
		o = errorf("ending the requester: %v", err)
	}
	return life(id, expect, withinSrc, o)
}

func (r *Runner) withinCases(sid, dir, other string) Outcome {
	var seen []string
	for _, c := range []struct {
		grant, path, field string
	}{{"--write", dir, "access.write[0]"}, {"--read", other, "access.read[0]"}} {
		got, err := r.tryRun("--within", sid, c.grant, c.path, "--cwd", c.path, "--", "true")
		if err != nil {
			return errorf("%v", err)
		}
		if got.status != 125 || got.field != c.field {
			return failf("--within %s %s %s: %v; want exit 125, field %s", sid, c.grant, c.path, got, c.field)
		}
		seen = append(seen, c.grant+" "+filepath.Base(c.path)+": "+got.String())
	}
	sub := filepath.Join(dir, "sub")
	got, err := r.tryRun("--within", sid, "--read", sub, "--cwd", sub, "--", "true")
	if err != nil {
		return errorf("%v", err)
	}
	if got.status != 0 {
		return failf("the narrower child (--read %s) did not run: %v", sub, got)
	}
	return passf("%s; narrower --read sub: exit 0", strings.Join(seen, "; "))
}

// withinEndsWithRequester: a child launched --within A whose member
// ignores SIGTERM is gone within 15 s after A's member exits (the fix:
// coordinator/within_watch.go; before, it ran on with its requester gone).
func (r *Runner) withinEndsWithRequester() Line {
	const id = "life.within-ends-with-requester"
	const expect = "a child launched --within A, whose member ignores SIGTERM, is gone within 15 s after A's member exits"
	dir, _, err := r.withinDir()
	if err != nil {
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	a, sid, err := r.requester(dir)
	if err != nil {
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	child, cid, err := r.stubbornChild(sid, dir)
	if err != nil {
		endRequester(a, dir)
		return life(id, expect, withinSrc, errorf("%v", err))
	}
	if err := endRequester(a, dir); err != nil {
		r.acbox("stop", cid)
		status(child, 20*time.Second)
		return life(id, expect, withinSrc, errorf("the requester did not end: %v", err))
	}
	start, done := time.Now(), waiter(child)
	select {
	case <-done:
		return life(id, expect, withinSrc, passf("the child ended %.1f s after its requester (%v)", time.Since(start).Seconds(), child.ProcessState))
	case <-time.After(15 * time.Second):
	}
	// Leave nothing behind for the leftovers check.
	r.acbox("stop", cid)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		child.Process.Kill()
	}
	return life(id, expect, withinSrc, failf("the child %s still ran 15 s after its requester %s ended", cid, sid))
}

// stubbornChild starts `acbox run --within sid` whose member ignores
// SIGTERM, and returns it once its member is ready.
func (r *Runner) stubbornChild(sid, dir string) (*exec.Cmd, string, error) {
	return r.startSandbox("the child", append(r.runFlags(), "--within", sid, "--read", dir, "--cwd", dir, "--", "sh", "-c",
		`trap '' TERM; echo ready; sleep 60; sleep 60`))
}

// waiter waits for c in the background; the channel closes when it exits.
func waiter(c *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	return done
}
