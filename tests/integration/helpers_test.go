//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// canaryEnv is set in acbox's own environment on every run; it must never
// reach a member unless passed with --pass-env.
const canaryEnv = "SECRET_CANARY=acbox-it-secret-value"

// hostPath is PATH for acbox itself (the member's PATH is acbox's choice).
const hostPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// result is how one acbox invocation ended.
type result struct {
	stdout, stderr string
	code           int // exit status; 128+N when acbox was killed by signal N
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// env is acbox's environment in mode m: a login-like minimum, the canary,
// and extra.
func (m mode) env(extra ...string) []string {
	env := []string{"PATH=" + hostPath, "HOME=" + m.home, "USER=" + m.user, "LOGNAME=" + m.user, "LANG=C.UTF-8", canaryEnv}
	return append(env, extra...)
}

// command builds an acbox invocation in mode m, started from "/" (which no
// grant covers, so the member's default cwd is its private home).
func (m mode) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, acboxBin, args...)
	cmd.Env = m.env(env...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// runBox runs acbox with args in mode m and waits (at most 30s).
func runBox(t *testing.T, m mode, args ...string) result {
	t.Helper()
	return runBoxEnv(t, m, nil, args...)
}

// runBoxEnv is runBox with extra variables in acbox's environment.
func runBoxEnv(t *testing.T, m mode, env []string, args ...string) result {
	t.Helper()
	return runBoxFor(t, m, 30*time.Second, env, args...)
}

// runBoxFor is runBoxEnv with a limit of its own (a cold Go build on a
// loaded 2-core runner takes far longer than a launch).
func runBoxFor(t *testing.T, m mode, limit time.Duration, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := m.command(ctx, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("acbox %q timed out after %v\nstdout:\n%s\nstderr:\n%s", args, limit, out.String(), errb.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("starting acbox %q: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: exitCode(cmd.ProcessState)}
}

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// probePrelude defines two shell helpers for scripts run inside a sandbox:
// `yes NAME CMD` expects CMD to succeed and `no NAME CMD` expects it to
// fail. Each prints "ok NAME", or "BAD NAME: CMD: output" for the test to
// report. CMD is eval'd, so it may hold redirections.
const probePrelude = `
yes() { if out=$(eval "$2" 2>&1); then echo "ok $1"; else echo "BAD $1: expected success: $2: $out"; fi; }
no()  { if out=$(eval "$2" 2>&1); then echo "BAD $1: expected failure: $2: $out"; else echo "ok $1"; fi; }
`

// probe runs `sh -c prelude+script` in a sandbox with the given acbox run
// flags, fails the test on every BAD line or a non-zero exit, and returns
// stdout.
func probe(t *testing.T, m mode, flags []string, script string) string {
	t.Helper()
	args := append(append([]string{"run"}, flags...), "--", "sh", "-c", probePrelude+script)
	r := runBox(t, m, args...)
	if r.code != 0 {
		t.Fatalf("probe exited %d, want 0\n%v", r.code, r)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "BAD ") {
			t.Error(strings.TrimPrefix(line, "BAD "))
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", r.stderr)
	}
	return r.stdout
}

// fixture is a per-test directory under the suite root, owned by the
// mode's user.
type fixture struct {
	t    *testing.T
	m    mode
	root string
}

func newFixture(t *testing.T, m mode) *fixture {
	t.Helper()
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "-"
	dir, err := os.MkdirTemp(suiteRoot, name)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, m: m, root: dir}
	f.own(dir, 0o755)
	return f
}

func (f *fixture) own(p string, perm os.FileMode) {
	f.t.Helper()
	if err := os.Chmod(p, perm); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Lchown(p, f.m.uid, f.m.gid); err != nil {
		f.t.Fatal(err)
	}
}

// dir creates root/rel (and its missing parents), owned by the mode's user.
func (f *fixture) dir(rel string) string {
	f.t.Helper()
	p := f.root
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		if err := os.Mkdir(p, 0o755); errors.Is(err, os.ErrExist) {
			continue
		} else if err != nil {
			f.t.Fatal(err)
		}
		f.own(p, 0o755)
	}
	return p
}

// file writes root/rel, owned by the mode's user.
func (f *fixture) file(rel, content string) string {
	f.t.Helper()
	f.dir(filepath.Dir(rel))
	p := filepath.Join(f.root, rel)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.own(p, 0o644)
	return p
}

// homeEntry creates name in the mode user's real home (a file when content
// is non-nil, else a directory), owned by that user, removed at cleanup.
func homeEntry(t *testing.T, m mode, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(m.home, name)
	var err error
	if content != nil {
		err = os.WriteFile(p, content, 0o644)
	} else {
		err = os.Mkdir(p, 0o755)
	}
	if err == nil {
		err = os.Lchown(p, m.uid, m.gid)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(p) })
	return p
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
