package probe

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Lifecycle scenarios of the host commands: `acbox stop`, `acbox gc` after
// SIGKILL, and a nested launch wider than its requester.

// withEvents adds --status-fd 3 to an `acbox run` and returns a reader of
// the started event's sandbox id.
func withEvents(c *exec.Cmd) (func() (string, error), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	for i, a := range c.Args {
		if a == "run" {
			c.Args = append(c.Args[:i+1], append([]string{"--status-fd", "3"}, c.Args[i+1:]...)...)
			break
		}
	}
	c.ExtraFiles = []*os.File{w}
	return func() (string, error) {
		w.Close()
		defer r.Close()
		var ev struct{ Event, ID string }
		line, err := bufio.NewReader(r).ReadString('\n')
		if err == nil {
			err = json.Unmarshal([]byte(line), &ev)
		}
		return ev.ID, err
	}, nil
}

func (r *Runner) acbox(args ...string) (string, int) {
	c := exec.Command(r.Exe, args...)
	out, _ := c.CombinedOutput()
	return string(out), c.ProcessState.ExitCode()
}

// startedBox starts a member that waits for a signal and returns its
// command and sandbox id.
func (r *Runner) startedBox() (*exec.Cmd, string, error) {
	c := r.cli("--wait-signal")
	id, err := withEvents(c)
	if err != nil {
		return nil, "", err
	}
	if err := startReady(c); err != nil {
		return nil, "", err
	}
	sid, err := id()
	return c, sid, err
}

func (r *Runner) stopScenario() Line {
	const expect = "`acbox stop ID` ends the sandbox and every process in it, and `acbox ps` no longer lists it"
	c, id, err := r.startedBox()
	if err != nil {
		return life("life.stop", expect, design, errorf("%v", err))
	}
	if out, code := r.acbox("stop", id); code != 0 {
		c.Process.Kill()
		c.Wait()
		return life("life.stop", expect, design, failf("acbox stop exited %d: %s", code, strings.TrimSpace(out)))
	}
	got, err := status(c, 20*time.Second)
	if err != nil {
		return life("life.stop", expect, design, errorf("%v", err))
	}
	if ps, _ := r.acbox("ps", "--json"); strings.Contains(ps, id) {
		return life("life.stop", expect, design, failf("still listed by acbox ps: %s", ps))
	}
	return life("life.stop", expect, design, passf("acbox exited %d; %s gone", got, id))
}

func (r *Runner) killThenGC() Line {
	const expect = "after SIGKILL of acbox, `acbox gc` leaves no registry entry and no run directory of the sandbox"
	c, id, err := r.startedBox()
	if err != nil {
		return life("life.kill-gc", expect, design, errorf("%v", err))
	}
	c.Process.Kill()
	c.Wait()
	time.Sleep(200 * time.Millisecond)
	out, code := r.acbox("gc")
	ps, _ := r.acbox("ps", "--json")
	switch {
	case code != 0:
		return life("life.kill-gc", expect, design, failf("acbox gc exited %d: %s", code, out))
	case strings.Contains(ps, id):
		return life("life.kill-gc", expect, design, failf("%s still listed after gc: %s", id, ps))
	}
	return life("life.kill-gc", expect, design, passf("gc: %s", strings.Join(strings.Fields(out), " ")))
}

// nestedWider runs, inside a delegating sandbox with a 256 MiB limit,
// `acbox run`s wider than their requester: a write grant it does not have,
// and a tmpfs far beyond its memory (tmpfs pages are memory no rlimit
// counts), and a third on the docker backend (no Landlock, no user
// namespace: a downgrade); the broker must refuse each, with its reason.
func (r *Runner) nestedWider() Line {
	const expect = "inside a delegating sandbox, a nested launch wider than its requester (a write grant, a tmpfs beyond its memory, another backend than its own) is refused (125) by the broker"
	if r.docker() {
		return life("life.nested-wider", expect, design, skipf("the docker backend has no nested launches"))
	}
	script := `acbox run --write ` + r.Fixture.Read + ` -- true; echo write=$?; acbox run --tmpfs /big:64GiB -- true; echo tmpfs=$?; acbox run --backend docker -- true; echo backend=$?`
	args := append(r.runFlags(), "--delegate", "--memory", "256MiB", "--read", r.Fixture.Read, "--", "sh", "-c", script)
	c := exec.Command(r.Exe, args...)
	out, _ := c.CombinedOutput()
	text := strings.TrimSpace(string(out))
	for _, want := range []string{"write=125", "nested write grant", "tmpfs=125", "more than the memory limit of 256MiB", "backend=125", "runs on the native backend"} {
		if !strings.Contains(text, want) {
			return life("life.nested-wider", expect, design, failf("exit %d, no %q in: %s", c.ProcessState.ExitCode(), want, text))
		}
	}
	return life("life.nested-wider", expect, design, passf("refused: %s", strings.Join(strings.Fields(text), " ")))
}
