//go:build integration

package views

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What an attacker found in the first landing of "masks hold for the whole
// run": another sandbox's state (and its broker socket) under the other
// state directory form, user paths with "[" read as patterns, the anchor's
// own entry left live, runtime mounts of credentials, and --delegate
// unusable in the host view.

// background starts acbox as w with args and returns a stop function.
func (w who) background(t *testing.T, dir string, env []string, args ...string) func() {
	t.Helper()
	cmd := exec.Command(acboxBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + w.home, "USER=" + w.name, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() { cmd.Process.Kill(); cmd.Wait() }
}

// A host-view sandbox started with one form of the state directory cannot
// see another sandbox's state (its run directory holds the broker and
// proxy sockets) in the other form, nor the other config directory.
func TestOtherSandboxesStateHidden(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			work := filepath.Join(f.data, "work")
			xdg := filepath.Join(f.data, "xdg-run")
			f.mkdir(t, xdg)
			fallback := filepath.Join(w.home, ".local", "state", "acbox", "run")
			for _, c := range []struct{ name, victimEnv, attackerEnv, runDir string }{
				{"xdg-attacker", "", "XDG_RUNTIME_DIR=" + xdg, fallback},
				{"xdg-victim", "XDG_RUNTIME_DIR=" + xdg, "", filepath.Join(xdg, "acbox", "run")},
			} {
				stop := w.background(t, f.data, []string{c.victimEnv}, "run", "--delegate", "--write", work, "--", "sleep", "20")
				if !waitGlob(filepath.Join(c.runDir, "*", "broker.sock"), 10*time.Second) {
					stop()
					t.Fatalf("%s: the delegating sandbox never made its broker socket under %s", c.name, c.runDir)
				}
				ps := []probe{
					{"control", "grep -q plain " + f.data + "/plain.txt", true},
					{"run_dir", "ls -A " + c.runDir + " | grep -q .", false},
					{"state", "ls -A " + filepath.Dir(c.runDir) + " | grep -q .", false},
					{"fallback_config", "ls -A " + w.home + "/.config/acbox", false},
				}
				out, errs, code := w.acboxEnv(t, f.data, []string{c.attackerEnv}, "run", "--view", "host", "--", "sh", "-c", script(ps))
				stop()
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", c.name, code, errs)
				}
				checkProbes(t, ps, out)
			}
		})
	}
}

func waitGlob(pattern string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return true
		}
	}
	return false
}

// acboxEnv is acbox with extra environment ("" entries are skipped).
func (w who) acboxEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(acboxBin(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + w.home, "USER=" + w.name, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	for _, e := range env {
		if e != "" {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.cred}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running acbox as %s: %v", w.name, err)
	}
	return out.String(), errb.String(), code
}

// --exclude and protected paths are names, not patterns: "[" included.
func TestBracketPathsMasked(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			ex, prot := filepath.Join(f.data, "secret[1]"), filepath.Join(f.data, "prot[a]")
			f.file(t, ex, secret)
			f.file(t, prot, secret)
			ps := []probe{{"control", "grep -q plain " + f.data + "/plain.txt", true}, readable("exclude", ex, false), readable("protect", prot, false)}
			out, errs, code := w.acboxEnv(t, f.data, []string{"ACBOX_PRIVATE=" + prot}, "run", "--view", "host", "--exclude", ex, "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
		})
	}
}

// Renaming the masked name's parent or grandparent on the host (outside
// the home, where the parent was the anchor) surfaces nothing, for an
// --exclude and for the real target of a symlinked credential path.
func TestAnchorRenamedOnHost(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			out := filepath.Join("/var/tmp", "acbox-views-anchor-"+strconv.Itoa(os.Getpid()))
			f.mkdir(t, out)
			t.Cleanup(func() { os.RemoveAll(out) })
			work := filepath.Join(f.data, "work")
			sec := filepath.Join(out, "a", "x", "secret")
			f.file(t, sec, secret)
			changes := []hostChange{
				{"parent-renamed", sec, f.renameParent(sec)},
				{"grandparent-renamed", sec, func() error {
					a := filepath.Join(out, "a")
					if err := os.Rename(a, a+".old"); err != nil {
						return err
					}
					return f.writeNew(sec)
				}},
			}
			if kube := f.absentCred(t, ".kube"); kube != "" {
				real := filepath.Join(out, "k", "kube")
				f.file(t, filepath.Join(real, "config"), secret)
				f.link(t, real, kube)
				changes = append(changes, hostChange{"symlinked-cred-parent-renamed", real + "/config", func() error {
					if err := os.Rename(filepath.Dir(real), filepath.Dir(real)+".old"); err != nil {
						return err
					}
					return f.writeNew(real + "/config")
				}})
			}
			ps := []probe{{"control", "grep -q plain " + f.data + "/plain.txt", true}}
			for _, c := range changes {
				ps = append(ps, readable(c.name, c.read, false))
			}
			got := w.during(t, f.data, work, nil, changes, "run", "--view", "host", "--write", work, "--exclude", sec, "--", "sh", "-c", waitScript(work, ps))
			checkProbes(t, ps, got)
		})
	}
}

// A runtime mount that shows a built-in credential path is refused, in
// both views, also as root; an ordinary file mounts.
func TestMountOfCredentialRefused(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			for _, c := range []struct {
				mount string
				code  int
			}{
				{"/etc/shadow:/tmp/s", 125}, {w.home + "/.ssh:/tmp/x", 125}, {w.home + "/.ssh/acbox-views-id:/tmp/k", 125},
				{f.data + "/aws/credentials:/tmp/c", 125}, {f.data + "/plain.txt:/tmp/p", 0},
			} {
				for _, view := range []string{"grants", "host"} {
					if c.code == 0 && view == "host" {
						continue // a host-view target must exist on the host; the grants view shows it mounts
					}
					out, errs, code := w.acbox(t, f.data, "run", "--view", view, "--mount", c.mount, "--", "sh", "-c", "cat /tmp/p /tmp/s /tmp/c 2>/dev/null; ls /tmp/x 2>/dev/null; true")
					if code != c.code || (code == 125 && !strings.Contains(errs, "built-in credential path")) || strings.Contains(out, secret) {
						t.Errorf("--view %s --mount %s: exit %d (want %d), out %q\n%s", view, c.mount, code, c.code, out, errs)
					}
				}
			}
		})
	}
}

// --delegate works in the host view: the broker socket and the acbox
// binary sit in the sandbox's own read-only /.acbox.
func TestDelegateInHostView(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			work := filepath.Join(f.data, "work")
			ps := []probe{
				{"nested", "acbox run --write " + work + " -- sh -c 'echo n > " + work + "/n' && grep -q n " + work + "/n", true},
				{"own_dir_read_only", "touch /.acbox/x", false},
			}
			out, errs, code := w.acbox(t, f.data, "run", "--view", "host", "--delegate", "--write", work, "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
		})
	}
}
