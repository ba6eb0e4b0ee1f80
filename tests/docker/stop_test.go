//go:build integration

package docker_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// foreignInit starts a process as pid 1 of a new user and pid namespace:
// what the daemon's number for a container's pid 1 may name here when the
// daemon runs in another pid namespace.
func foreignInit(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "120")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot make a user and pid namespace here: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestDockerStopForeignDaemonPid: the daemon's pid for the container's
// pid 1 names another process here (a daemon in another pid namespace,
// stood in by the DaemonPid hook): the launch reports no host pid and no
// pidfd, reads nothing through that pid (no namespaces, no host-side
// mount check), and its kill ends the container through the Engine API;
// the other process is never signalled. Without the hook the daemon's pid
// is this namespace's: it is reported, with its pidfd.
func TestDockerStopForeignDaemonPid(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name    string
		foreign bool
	}{{"foreign", true}, {"same namespace", false}} {
		t.Run(tc.name, func(t *testing.T) {
			other := foreignInit(t)
			var hooks docker.Hooks
			if tc.foreign {
				hooks.DaemonPid = func(int) int { return other.Process.Pid }
			}
			var st backend.Started
			onReady := func(s backend.Started) {
				st = s
				if s.Pidfd > 0 { // valid during OnReady: the container's pid 1
					unix.PidfdSendSignal(s.Pidfd, unix.SIGKILL, nil, 0)
					return
				}
				go s.Kill()
			}
			spec := policy.Spec{Command: []string{"sh", "-c", "trap '' TERM; sleep 60"}}
			out, err := e.launchIO(t, spec, hooks, backend.LaunchIO{OnReady: onReady})
			if err != nil {
				t.Fatal(err)
			}
			if out.Code != 137 {
				t.Errorf("exit %d, want 137 (the container killed)", out.Code)
			}
			if tc.foreign != (st.Pid == 0) || tc.foreign != (st.Pidfd == 0) || st.Kill == nil {
				t.Errorf("started pid %d pidfd %d kill %v; want a pid only in the same namespace", st.Pid, st.Pidfd, st.Kill != nil)
			}
			if tc.foreign && (len(out.Report.Namespaces) != 0 || !strings.Contains(mountsWhy(out.Report), "another pid namespace")) {
				t.Errorf("report read through a foreign pid: namespaces %v, mounts %q", out.Report.Namespaces, mountsWhy(out.Report))
			}
			if !tc.foreign && out.Report.Namespaces["pid"] == 0 {
				t.Errorf("no namespaces reported for a verified pid 1: %v", out.Report.Namespaces)
			}
			if err := syscall.Kill(other.Process.Pid, 0); err != nil {
				t.Errorf("the foreign process: %v", err)
			}
			if st, err := os.ReadFile("/proc/" + itoa(other.Process.Pid) + "/stat"); err != nil || !bytes.Contains(st, []byte(") S ")) {
				t.Errorf("the foreign process was signalled: %s %v", st, err)
			}
			e.noneLeft(t)
		})
	}
}

func mountsWhy(r *policy.Report) string {
	for _, c := range r.Controls {
		if c.Name == "mounts" {
			return c.Why
		}
	}
	return ""
}

// TestDockerStopRunsChecks: acbox stop of a docker sandbox whose member
// ignores SIGTERM kills the container, not its acbox, which runs its
// checks and exits 137: through the container's pid 1 where it was
// verified here, and through the Engine API when the registry records
// none (as under a daemon in another pid namespace; the entry's pid 1 is
// taken out here).
func TestDockerStopRunsChecks(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name  string
		nopid bool
	}{{"pid 1", false}, {"no pid 1", true}} {
		t.Run(tc.name, func(t *testing.T) {
			_, rw := dirs(t)
			owner := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "-w", rw, "--",
				"sh", "-c", "trap '' TERM; touch "+rw+"/ready; sleep 60")
			owner.Dir = "/"
			var errb bytes.Buffer
			owner.Stderr = &errb
			if err := owner.Start(); err != nil {
				t.Fatal(err)
			}
			defer owner.Process.Kill()
			id := waitContainer(t, e, owner.Process.Pid)
			waitFile(t, filepath.Join(rw, "ready"))
			if tc.nopid {
				forgetPid1(t, id)
			}
			out, err := exec.Command(e.bin, "stop", "--grace", "1s", id).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "its checks ran") {
				t.Fatalf("acbox stop: %v: %s", err, out)
			}
			owner.Wait()
			if c := owner.ProcessState.ExitCode(); c != 137 {
				t.Errorf("owner exit %d, want 137; stderr: %s", c, errb.String())
			}
			e.noneLeft(t)
		})
	}
}

// forgetPid1 waits for the registry entry of id to record its pid 1 and
// takes it out.
func forgetPid1(t *testing.T, id string) {
	t.Helper()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.OpenRegistry(h.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if en, err := reg.Get(id); err == nil && en.HelperPid > 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no pid 1 recorded in 20 s")
		}
	}
	if err := reg.Update(id, func(en *registry.Entry) { en.HelperPid, en.HelperStart = 0, 0 }); err != nil {
		t.Fatal(err)
	}
}

// TestDockerWithinChildKilled: a docker sandbox launched --within another
// whose member ignores SIGTERM is killed (its container, not its acbox)
// once the requester ends, and exits 137 after its checks.
func TestDockerWithinChildKilled(t *testing.T) {
	e := setup(t)
	_, rw := dirs(t)
	lead := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "-w", rw, "--",
		"sh", "-c", "until [ -e "+rw+"/go ]; do sleep 0.1; done")
	lead.Dir = "/"
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	defer lead.Process.Kill()
	id := waitContainer(t, e, lead.Process.Pid)
	child := exec.Command(e.bin, "run", "--within", id, "--backend", "docker", "--image", image, "--no-tty", "-w", rw, "--",
		"sh", "-c", "trap '' TERM; touch "+rw+"/ready; sleep 60")
	child.Dir = "/"
	var errb bytes.Buffer
	child.Stderr = &errb
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	waitFile(t, filepath.Join(rw, "ready"))
	os.WriteFile(filepath.Join(rw, "go"), nil, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() { <-ctx.Done(); child.Process.Kill() }()
	child.Wait()
	lead.Wait()
	if c := child.ProcessState.ExitCode(); c != 137 || !strings.Contains(errb.String(), "its sandbox is killed") {
		t.Errorf("child exit %d, want 137 with its sandbox killed; stderr: %s", c, errb.String())
	}
	e.noneLeft(t)
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear in 20 s", p)
}
