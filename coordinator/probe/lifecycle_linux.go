package probe

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Lifecycle runs the scenarios that can only be judged from outside, each
// through `acbox run` with the runner's binary as the member.
func (r *Runner) Lifecycle() []Line {
	return append([]Line{
		r.exitCode(), r.signalExit(), r.signalForward(), r.dieWithParent(),
		r.symlinkGrantCLI(), r.swappedBeforeLaunch(), r.dirSwappedBeforeLaunch(),
		r.maskHeldGrants(), r.maskHeldHost(), r.shadowHidden(), r.maskOtherState(),
		r.stopScenario(), r.killThenGC(), r.nestedWider(), r.withinWider(), r.withinEndsWithRequester(), r.withinChildChecked(), r.privateRoot(),
		r.crossSandboxSwap(), r.crossSandboxBroker(), r.nestedUnseen(), r.inotifyHeadroom(), r.exitScanMount(), r.exitScanCaps(), r.exitScanNameQuoted(), r.reportReplaced(), r.terminalKept(), r.etcRootOnly(), r.delegateMetadata(),
	}, r.gitRedirects()...)
}

func life(id, expect, source string, o Outcome) Line {
	return Line{ID: id, Category: Lifecycle, Result: o.Result, Expect: expect, Detail: o.Detail, Source: source}
}

// cliMemberPath is where a CLI launch of the native backend mounts the
// probe member.
const cliMemberPath = "/.acbox-probe/acbox"

// cli is `acbox run` of the probe member with the fixture's grants.
func (r *Runner) cli(probeArgs ...string) *exec.Cmd { return r.cliWith(nil, probeArgs...) }

// cliWith is cli with more `acbox run` flags.
func (r *Runner) cliWith(runArgs []string, probeArgs ...string) *exec.Cmd {
	args := append(append(r.runFlags(), runArgs...), "--write", r.Fixture.Write, "--read", r.Fixture.Read, "--cwd", r.Fixture.Write)
	member := MemberPath // the docker backend binds itself there
	if !r.docker() {
		// A mount the command line asks for may not target acbox's own
		// /.acbox (only the runner's internal mounts may), so the member
		// a CLI launch runs is bound beside it.
		member = cliMemberPath
		args = append(args, "--mount", r.Exe+":"+member+":ro")
	}
	args = append(args, "--", member, "probe")
	c := exec.Command(r.Exe, append(args, probeArgs...)...)
	c.Stderr = r.Stderr
	return c
}

// runFlags starts an `acbox run` on the runner's backend.
func (r *Runner) runFlags() []string {
	args := []string{"run", "--no-tty", "--backend", r.backend().Name()}
	if r.docker() && r.Image != "" {
		args = append(args, "--image", r.Image)
	}
	return args
}

// status runs c with a timeout and returns its exit status.
func status(c *exec.Cmd, d time.Duration) (int, error) {
	if c.Process == nil {
		if err := c.Start(); err != nil {
			return -1, err
		}
	}
	t := time.AfterFunc(d, func() { c.Process.Kill() })
	defer t.Stop()
	err := c.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

func wantStatus(c *exec.Cmd, want int) Outcome {
	got, err := status(c, 30*time.Second)
	if err != nil {
		return errorf("%v", err)
	}
	if got != want {
		return failf("exit status %d, want %d", got, want)
	}
	return passf("exit status %d", got)
}

func (r *Runner) exitCode() Line {
	return life("life.exit-code", "acbox exits with the member's status (7)", design, wantStatus(r.cli("--exit=7"), 7))
}

func (r *Runner) signalExit() Line {
	return life("life.signal-exit", "a member killed by SIGTERM makes acbox exit 143 (128+15)", design,
		wantStatus(r.cli("--kill-self=15"), 143))
}

// startReady starts c and waits for the member's "ready" line.
func startReady(c *exec.Cmd) error {
	out, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	ready := make(chan string, 1)
	go func() { l, _ := bufio.NewReader(out).ReadString('\n'); ready <- l }()
	select {
	case l := <-ready:
		if strings.TrimSpace(l) != "ready" {
			c.Process.Kill()
			c.Wait()
			return errors.New("member did not start (first line " + strings.TrimSpace(l) + ")")
		}
		return nil
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		c.Wait()
		return errors.New("member not ready after 20s")
	}
}

func (r *Runner) signalForward() Line {
	expect := "SIGUSR1 sent to acbox reaches the member (which exits 42)"
	c := r.cli("--wait-signal")
	if err := startReady(c); err != nil {
		return life("life.signal-forward", expect, "bubblewrap --die-with-parent/--as-pid-1 tests", errorf("%v", err))
	}
	c.Process.Signal(syscall.SIGUSR1)
	return life("life.signal-forward", expect, "nsjail signal forwarding", wantStatus(c, 42))
}

// dieWithParent kills acbox with SIGKILL while a setsid'd daemon inside
// writes a heartbeat, then requires the heartbeat to stop and no process
// of the sandbox to remain on the host.
func (r *Runner) dieWithParent() Line {
	expect := "after SIGKILL of acbox, no process of the sandbox survives, including a setsid'd daemon"
	src := "bubblewrap --die-with-parent; nsjail"
	hb := filepath.Join(r.Fixture.Write, "heartbeat-"+randHex(4))
	c := r.cli("--daemon=" + hb)
	if err := startReady(c); err != nil {
		return life("life.die-with-parent", expect, src, errorf("%v", err))
	}
	if !waitFile(hb, 5*time.Second) {
		c.Process.Kill()
		c.Wait()
		return life("life.die-with-parent", expect, src, errorf("the daemon wrote no heartbeat"))
	}
	c.Process.Kill()
	c.Wait()
	// Teardown is asynchronous under docker (the init notices the closed
	// gate, the daemon removes the container): wait up to 10 s for the
	// daemon to be gone, then require the heartbeat to stand still.
	var pids []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if pids = hostPidsWith("--heartbeat=" + hb); len(pids) == 0 {
			break
		}
	}
	if len(pids) > 0 {
		return life("life.die-with-parent", expect, src, failf("daemon still alive on the host 10 s after acbox was killed: pids %v", pids))
	}
	b1, _ := os.ReadFile(hb)
	time.Sleep(500 * time.Millisecond)
	b2, _ := os.ReadFile(hb)
	if string(b1) != string(b2) {
		return life("life.die-with-parent", expect, src, failf("the heartbeat is still being written with no daemon process on the host"))
	}
	return life("life.die-with-parent", expect, src, passf("heartbeat stopped; no daemon process on the host"))
}

func waitFile(p string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// hostPidsWith lists host processes whose command line contains s.
func hostPidsWith(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name())
		}
	}
	return out
}
