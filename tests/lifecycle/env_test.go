//go:build integration

package lifecycle

import (
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/tests/testenv"

	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runner runs the acbox binary as one user with a private state directory
// (XDG_RUNTIME_DIR) and config directory (XDG_CONFIG_HOME):
//
//	base/            0755, removed at the end
//	base/run/acbox   the registry (StateDir), 0700, the user's
//	base/config      XDG_CONFIG_HOME (config.json for max_sandboxes)
//	base/out         reports, owned by the user
type runner struct {
	name     string
	bin      string
	cred     *syscall.Credential
	home     string
	base     string
	uid, gid int
}

func (r *runner) state() string  { return filepath.Join(r.base, "run", "acbox") }
func (r *runner) out() string    { return filepath.Join(r.base, "out") }
func (r *runner) config() string { return filepath.Join(r.base, "config", "acbox") }

// eachUser runs f as the caller and, when the caller is root, as the
// unprivileged test user as well.
func eachUser(t *testing.T, f func(t *testing.T, r *runner)) {
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	me, _ := user.Current()
	t.Run(me.Username, func(t *testing.T) { f(t, newRunner(t, bin, me)) })
	if os.Getuid() == 0 {
		u := testUser(t)
		t.Run(u.Username, func(t *testing.T) { f(t, newRunner(t, bin, u)) })
	}
}

func newRunner(t *testing.T, bin string, u *user.User) *runner {
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base, err := os.MkdirTemp("", "acbox-lifecycle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	r := &runner{name: u.Username, bin: bin, home: u.HomeDir, base: base, uid: uid, gid: gid}
	for _, d := range []string{"run", "config", "config/acbox", "out"} {
		p := filepath.Join(base, d)
		os.MkdirAll(p, 0o700)
		os.Chown(p, uid, gid)
	}
	if uid != os.Getuid() {
		r.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	return r
}

func testUser(t *testing.T) *user.User {
	u, err := testenv.User()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// cmd is `acbox args...` as the runner's user, from /.
func (r *runner) cmd(args ...string) *exec.Cmd {
	c := exec.Command(r.bin, args...)
	c.Dir = "/"
	c.Env = []string{"HOME=" + r.home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"XDG_RUNTIME_DIR=" + filepath.Join(r.base, "run"), "XDG_CONFIG_HOME=" + filepath.Join(r.base, "config")}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	return c
}

// run runs acbox to the end and returns stdout, stderr and the exit code.
func (r *runner) run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	c := r.cmd(args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("acbox %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// ps returns the live entries as `acbox ps --json` prints them.
func (r *runner) ps(t *testing.T) []registry.Entry {
	t.Helper()
	out, errs, code := r.run(t, "ps", "--json")
	if code != 0 {
		t.Fatalf("acbox ps: exit %d: %s", code, errs)
	}
	var es []registry.Entry
	if err := json.Unmarshal([]byte(out), &es); err != nil {
		t.Fatalf("acbox ps --json: %v\n%s", err, out)
	}
	return es
}

// waitPs polls until ps lists n sandboxes, each with its helper recorded.
func (r *runner) waitPs(t *testing.T, n int) []registry.Entry {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		es := r.ps(t)
		ready := len(es) == n
		for _, e := range es {
			ready = ready && e.HelperPid > 0
		}
		if ready {
			return es
		}
		if time.Now().After(deadline) {
			t.Fatalf("acbox ps lists %d sandboxes (%+v); want %d with helpers", len(es), es, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeConfig writes config.json for the runner's user.
func (r *runner) writeConfig(t *testing.T, json string) {
	p := filepath.Join(r.config(), "config.json")
	if err := os.WriteFile(p, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(p, r.uid, r.gid)
}

// procsWith lists host pids whose command line contains every arg (a
// unique sleep duration marks one test's members).
func procsWith(args ...string) []int {
	des, _ := os.ReadDir("/proc")
	var out []int
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(b) == 0 {
			continue
		}
		if _, err := registry.ProcStart(pid); err != nil {
			continue // zombie
		}
		cl := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if containsAll(cl, args) {
			out = append(out, pid)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// waitGone waits until no process matches args.
func waitGone(t *testing.T, d time.Duration, args ...string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(procsWith(args...)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still run after %v: %v", args, d, procsWith(args...))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// cgroupsOf lists the sandbox cgroup directories a process is in (root
// only sees them as files under /sys/fs/cgroup).
func cgroupsOf(pid int, id string) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.HasSuffix(f[2], "/acbox-"+id) {
			continue
		}
		switch f[1] {
		case "memory", "pids":
			out = append(out, filepath.Join("/sys/fs/cgroup", f[1], f[2]))
		case "":
			out = append(out, filepath.Join("/sys/fs/cgroup", f[2]))
		}
	}
	return out
}
