//go:build integration

package docker_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/policy"
)

// launch runs a plan through the backend in this process, with hooks.
func (e *env) launch(t *testing.T, spec policy.Spec, hooks docker.Hooks) (*backend.Outcome, error) {
	t.Helper()
	return e.launchSignals(t, spec, hooks, nil)
}

// launchSignals is launch with LaunchIO.Signals: the signals the caller
// caught, as the launcher's hold passes them (nil: the backend catches).
func (e *env) launchSignals(t *testing.T, spec policy.Spec, hooks docker.Hooks, sigs <-chan os.Signal) (*backend.Outcome, error) {
	t.Helper()
	return e.launchIO(t, spec, hooks, backend.LaunchIO{Signals: sigs})
}

// launchIO is launch with the given LaunchIO (its streams /dev/null).
func (e *env) launchIO(t *testing.T, spec policy.Spec, hooks docker.Hooks, lio backend.LaunchIO) (*backend.Outcome, error) {
	t.Helper()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	h.Cwd = "/"
	spec.Backend, spec.Image = "docker", image
	p, err := policy.Resolve(spec, h)
	if err != nil {
		t.Fatal(err)
	}
	null, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer null.Close()
	b := docker.Backend{Exe: e.bin, Hooks: hooks}
	lio.Stdin, lio.Stdout, lio.Stderr = null, null, null
	return b.Launch(p, lio)
}

// TestSymlinkSwapCaught swaps a read grant for a symlink to another
// directory after the container passed inspection and before start. Docker
// follows the symlink at start; the gate must see the difference before
// any member code runs: the member would write a marker into the grant.
func TestSymlinkSwapCaught(t *testing.T) {
	e := setup(t)
	ro, rw := dirs(t)
	other := filepath.Join(filepath.Dir(ro), "other")
	os.Mkdir(other, 0o777)
	swap := func() {
		os.Rename(ro, ro+".orig")
		os.Symlink(other, ro)
	}
	spec := policy.Spec{Command: []string{"sh", "-c", "touch " + rw + "/MEMBER-RAN"},
		Access: policy.Access{Read: []string{ro}, Write: []string{rw}}}
	_, err := e.launch(t, spec, docker.Hooks{BeforeStart: swap})
	if err == nil || !strings.Contains(err.Error(), "is not the one that was checked") {
		t.Fatalf("launch with a swapped grant: %v; want the swap caught", err)
	}
	if _, err := os.Stat(filepath.Join(rw, "MEMBER-RAN")); err == nil {
		t.Error("member code ran although the grant was swapped")
	}
	e.noneLeft(t)
}

// TestTamperedConfigRefused adds a capability to the create request, as a
// wrapper or plugin could; inspection must refuse to start it.
func TestTamperedConfigRefused(t *testing.T) {
	e := setup(t)
	_, rw := dirs(t)
	started := false
	hooks := docker.Hooks{
		BeforeCreate: func(c *engine.Config, h *engine.HostConfig) { h.CapAdd = []string{"SYS_ADMIN"} },
		BeforeStart:  func() { started = true },
	}
	spec := policy.Spec{Command: []string{"touch", rw + "/MEMBER-RAN"}, Access: policy.Access{Write: []string{rw}}}
	_, err := e.launch(t, spec, hooks)
	if err == nil || !strings.Contains(err.Error(), "capabilities are not all dropped") {
		t.Fatalf("tampered launch: %v; want refused for capabilities", err)
	}
	if started {
		t.Error("the tampered container got as far as start")
	}
	if _, err := os.Stat(filepath.Join(rw, "MEMBER-RAN")); err == nil {
		t.Error("member code ran in a tampered container")
	}
	e.noneLeft(t)
}

// TestGateNotReplayable: the member reads the spent token from pid 1's
// command line and asks the gate again with acbox's own init.
func TestGateNotReplayable(t *testing.T) {
	e := setup(t)
	script := `tok=$(tr '\0' '\n' < /proc/1/cmdline | grep -A1 -x -- --token | tail -n 1)
test -n "$tok" || { echo NO-TOKEN; exit 1; }
` + docker.InitPath + ` container-init --gate /.acbox/gate/gate.sock --token "$tok" -- echo RELEASED-TWICE
echo "replay exit $?"`
	r := e.sh(t, script)
	if r.code != 0 || strings.Contains(r.out, "RELEASED-TWICE") || !strings.Contains(r.out, "replay exit 126") {
		t.Fatalf("code %d\nout: %s\nerr: %s", r.code, r.out, r.errout)
	}
}

// TestParentKilledEndsContainer kills acbox with SIGKILL while its member
// runs: the init sees the gate connection close and ends the member, and
// AutoRemove removes the container, with no later acbox needed.
func TestParentKilledEndsContainer(t *testing.T) {
	e := setup(t)
	cmd := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "--", "sleep", "60")
	cmd.Dir = "/"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitContainer(t, e, cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	e.noneLeft(t)
}

// waitContainer waits for a running container owned by pid; returns its id label.
func waitContainer(t *testing.T, e *env, pid int) string {
	id, ok := findContainer(t, e, pid)
	if !ok {
		t.Fatal(errors.New("no running container appeared"))
	}
	return id
}

// findContainer waits up to 20s for a running container owned by pid and
// returns its id label.
func findContainer(t *testing.T, e *env, pid int) (string, bool) {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, c := range e.containers(t, "") {
			if c.Labels[docker.LabelOwnerPid] == itoa(pid) && c.State == "running" {
				return c.Labels[docker.LabelID], true
			}
		}
	}
	return "", false
}
