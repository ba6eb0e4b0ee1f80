//go:build integration

package views

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Masks hold for the whole run: the member waits in its write grant until
// the test, outside, has changed the host the ways tools do (a file
// replaced by rename, a directory deleted and recreated, an intermediate
// directory renamed away and recreated, a credential path created that
// was absent at launch, a file added to acbox's config directory); then it
// tries to read each. The host's shadow files are never readable.

// hostChange is one thing the host does during the run, and the path the
// member then tries to read.
type hostChange struct {
	name, read string
	do         func() error
}

// waitScript: signal ready, wait for the go file, run the probes.
func waitScript(work string, ps []probe) string {
	return "echo ready > " + work + "/ready; i=0; while [ ! -e " + work + "/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n" + script(ps)
}

// during starts acbox as w with args (the member runs waitScript), performs
// the changes once the member is ready, and returns its output.
func (w who) during(t *testing.T, dir, work string, env []string, changes []hostChange, args ...string) string {
	t.Helper()
	cmd := exec.Command(acboxBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + w.home, "USER=" + w.name, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.cred}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if !waitFor(filepath.Join(work, "ready"), 20*time.Second) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("member never ready: %s", errb.String())
	}
	for _, c := range changes {
		if err := c.do(); err != nil {
			t.Fatalf("host change %s: %v", c.name, err)
		}
	}
	os.WriteFile(filepath.Join(work, "go"), nil, 0o644)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("acbox: %v\n%s", err, errb.String())
	}
	return out.String()
}

func waitFor(p string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// replaceByRename writes a new secret next to p and renames it over p, as
// git credential-store, editors and npm login do.
func (f *fixture) replaceByRename(p string) func() error {
	return func() error {
		tmp := p + ".acbox-new"
		if err := os.WriteFile(tmp, []byte(secret+"-new"), 0o600); err != nil {
			return err
		}
		f.chown(tmp)
		return os.Rename(tmp, p)
	}
}

// recreateDir deletes the directory p and makes it again with a secret.
func (f *fixture) recreateDir(p string) func() error {
	return func() error {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		return f.writeNew(filepath.Join(p, "s"))
	}
}

// renameParent moves p's parent aside and recreates p under a new parent.
func (f *fixture) renameParent(p string) func() error {
	return func() error {
		dir := filepath.Dir(p)
		if err := os.Rename(dir, dir+".moved"); err != nil {
			return err
		}
		return f.writeNew(p)
	}
}

// writeNew creates p (and missing parents) with a secret, owned by the
// fixture's user.
func (f *fixture) writeNew(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f.chown(filepath.Dir(p))
	if err := os.WriteFile(p, []byte(secret+"-new"), 0o600); err != nil {
		return err
	}
	f.chown(p)
	return nil
}

func (f *fixture) chown(p string) {
	if os.Geteuid() == 0 {
		os.Lchown(p, f.w.uid, f.w.gid)
	}
}

// absentCred returns a built-in credential path to create during the run,
// absent at launch (the fixture's own is removed first), or "" when the
// user has a real one (never touched).
func (f *fixture) absentCred(t *testing.T, rel string) string {
	p := filepath.Join(f.w.home, rel)
	if slices.Contains(f.created, p) {
		os.RemoveAll(p)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Logf("%s exists in %s's home: not testing it absent at launch", p, f.w.name)
		return ""
	}
	t.Cleanup(func() { os.RemoveAll(p) })
	return p
}

func TestMasksHoldForTheRunHostView(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			work := filepath.Join(f.data, "work")
			exFile, exDir, mid := filepath.Join(f.data, "exfile"), filepath.Join(f.data, "exdir"), filepath.Join(f.data, "mid", "secret")
			f.file(t, exFile, secret)
			f.file(t, filepath.Join(exDir, "s"), secret)
			f.file(t, mid, secret)
			cfg := filepath.Join(f.data, "xdg", "acbox")
			f.file(t, filepath.Join(cfg, "config.json"), `{"private": []}`)
			changes := []hostChange{
				{"exclude-file-renamed-over", exFile, f.replaceByRename(exFile)},
				{"exclude-dir-recreated", exDir + "/s", f.recreateDir(exDir)},
				{"exclude-parent-renamed", mid, f.renameParent(mid)},
				{"config-dir-new-file", cfg + "/new.json", func() error { return f.writeNew(cfg + "/new.json") }},
			}
			if gc := w.home + "/.git-credentials"; slices.Contains(f.created, gc) { // never a real one
				changes = append(changes, hostChange{"git-credentials-renamed-over", gc, f.replaceByRename(gc)})
			}
			if kube := f.absentCred(t, ".kube"); kube != "" {
				changes = append(changes, hostChange{"kube-created", kube + "/config", func() error { return f.writeNew(kube + "/config") }})
			}
			ps := []probe{{"control", "grep -q plain " + f.data + "/plain.txt", true}, {"shadow", "cat /etc/shadow", false}, {"gshadow", "cat /etc/gshadow", false},
				{"config_json", "cat " + cfg + "/config.json", false}}
			for _, c := range changes {
				ps = append(ps, readable(c.name, c.read, false))
			}
			out := w.during(t, f.data, work, []string{"XDG_CONFIG_HOME=" + filepath.Dir(cfg)}, changes, "run", "--view", "host", "--write", work,
				"--exclude", exFile, "--exclude", exDir, "--exclude", mid, "--", "sh", "-c", waitScript(work, ps))
			checkProbes(t, ps, out)
			os.RemoveAll(filepath.Dir(mid) + ".moved")
			os.Remove(w.home + "/.git-credentials") // the fixture's, replaced
		})
	}
}

// In the grants view, masks inside a read grant hold the same way: the
// grant's root is the snapshot's anchor.
func TestMasksHoldForTheRunGrantsView(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			work, g := filepath.Join(f.data, "work"), filepath.Join(f.data, "g")
			exFile, exDir, mid := filepath.Join(g, "exfile"), filepath.Join(g, "exdir"), filepath.Join(g, "mid", "secret")
			f.file(t, filepath.Join(g, "plain"), "plain")
			f.file(t, exFile, secret)
			f.file(t, filepath.Join(exDir, "s"), secret)
			f.file(t, mid, secret)
			changes := []hostChange{
				{"exclude-file-renamed-over", exFile, f.replaceByRename(exFile)},
				{"exclude-dir-recreated", exDir + "/s", f.recreateDir(exDir)},
				{"exclude-parent-renamed", mid, f.renameParent(mid)},
			}
			ps := []probe{{"control", "grep -q plain " + g + "/plain", true}, {"shadow", "cat /etc/shadow", false}, {"gshadow_", "cat /etc/gshadow-", false}}
			for _, c := range changes {
				ps = append(ps, readable(c.name, c.read, false))
			}
			out := w.during(t, f.data, work, nil, changes, "run", "--read", g, "--write", work,
				"--exclude", exFile, "--exclude", exDir, "--exclude", mid, "--", "sh", "-c", waitScript(work, ps))
			checkProbes(t, ps, out)
			os.RemoveAll(filepath.Dir(mid) + ".moved")
		})
	}
}

// A mask in a write grant cannot hold for the run: refused, with the remedy.
func TestMaskInWriteGrantRefused(t *testing.T) {
	w := runners(t)[0]
	f := newFixture(t, w)
	f.file(t, filepath.Join(f.data, "work", "secret"), secret)
	_, errs, code := w.acbox(t, f.data, "run", "--write", f.data+"/work", "--exclude", f.data+"/work/secret", "--", "true")
	if code != 125 || !strings.Contains(errs, "--best-effort") {
		t.Fatalf("exit %d, want 125 naming --best-effort:\n%s", code, errs)
	}
}
