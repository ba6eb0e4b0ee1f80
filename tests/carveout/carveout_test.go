//go:build integration

package carveout

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prelude: `yes NAME CMD` expects CMD to succeed, `no NAME CMD` to fail;
// each prints "ok NAME" or "BAD NAME: ...".
const prelude = `
yes() { if out=$(eval "$2" 2>&1); then echo "ok $1"; else echo "BAD $1: expected success: $2: $out"; fi; }
no()  { if out=$(eval "$2" 2>&1); then echo "BAD $1: expected failure: $2: $out"; else echo "ok $1"; fi; }
G='git -c user.email=m@acbox -c user.name=member'
`

// newRepo makes a git repository with one commit and a build.sh, owned by
// the mode's user.
func newRepo(t *testing.T, m mode) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", "."},
		{"-c", "user.email=u@acbox", "-c", "user.name=u", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte("echo build\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, m.uid, m.gid) })
	return dir
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs acbox in mode m from "/" and waits (at most 60s).
func run(t *testing.T, m mode, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, acboxBin, args...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + m.home, "LANG=C.UTF-8"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("acbox %q timed out\n%s", args, errb.String())
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// probe runs a prelude script in a sandbox with write access to repo (cwd
// repo) and the extra flags, and fails on each BAD line.
func probe(t *testing.T, m mode, repo string, flags []string, script string) {
	t.Helper()
	args := append(append([]string{"run", "-w", repo, "--cwd", repo}, flags...), "--", "sh", "-c", prelude+script)
	r := run(t, m, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	checks, seen := 0, 0
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(l, "yes ") || strings.HasPrefix(l, "no ") {
			checks++
		}
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "BAD ") {
			t.Error(strings.TrimPrefix(l, "BAD "))
		}
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "BAD ") {
			seen++
		}
	}
	if seen != checks {
		t.Errorf("%d of %d checks reported\nstdout:\n%s\nstderr:\n%s", seen, checks, r.stdout, r.stderr)
	}
}

func mustNotExist(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s exists on the host", p)
	}
}

// TestGitCarveouts: with --write REPO the member commits, but cannot
// write, replace or move the hooks, the config or .git itself.
func TestGitCarveouts(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		probe(t, m, repo, nil, `
yes commit            '$G commit -q --allow-empty -m inside'
yes log               'test "$(git log --format=%s -1)" = inside'
yes write-elsewhere   'echo x > notes.txt && echo x > .git/description'
no  hook-create       'echo "#!/bin/sh" > .git/hooks/pre-commit'
no  hook-chmod        'chmod +x .git/hooks/pre-commit.sample'
no  hooks-remove      'rm -rf .git/hooks'
no  hooks-rename      'mv .git/hooks .git/hooks.old'
no  config-write      'echo "[core] hooksPath=/tmp" >> .git/config'
no  config-git        '$G config core.hooksPath /tmp'
no  config-rename     'mv .git/config .git/config.old'
no  dotgit-rename     'mv .git .git.old'
yes build-writable    'echo "echo planted" >> build.sh'
`)
		mustNotExist(t, filepath.Join(repo, ".git/hooks/pre-commit"))
		if b, _ := os.ReadFile(filepath.Join(repo, ".git/config")); strings.Contains(string(b), "hooksPath") {
			t.Errorf(".git/config was changed on the host:\n%s", b)
		}
	})
}

// TestNestedRepositories: a workspace granted for writing, holding
// repositories one and three levels down: each one's hooks and config stay
// read-only and commits work in each; the directories above them cannot be
// renamed away (they are pinned), files in them can be written.
func TestNestedRepositories(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		ws := newRepo(t, m)
		os.RemoveAll(filepath.Join(ws, ".git"))
		for _, d := range []string{"app", "libs/go/util"} {
			r := newRepo(t, m)
			os.MkdirAll(filepath.Dir(filepath.Join(ws, d)), 0o755)
			if err := os.Rename(r, filepath.Join(ws, d)); err != nil {
				t.Fatal(err)
			}
		}
		filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, m.uid, m.gid) })
		probe(t, m, ws, nil, `
yes commit-app        '$G -C app commit -q --allow-empty -m inside'
yes commit-deep       '$G -C libs/go/util commit -q --allow-empty -m inside'
no  hook-app          'echo x > app/.git/hooks/pre-commit'
no  hook-deep         'echo x > libs/go/util/.git/hooks/pre-commit'
no  config-deep       '$G -C libs/go/util config core.hooksPath /tmp'
no  rename-parent     'mv libs libs.old'
no  rename-repo       'mv app app.old'
yes write-beside      'echo x > libs/go/notes.txt'
`)
		mustNotExist(t, filepath.Join(ws, "libs/go/util/.git/hooks/pre-commit"))
	})
}

// TestGitRedirectQuarantined: the member cannot write the hooks, so it
// creates .git/commondir pointing at a directory with hooks of its own
// (nothing exists there to bind read-only). At exit acbox moves the file
// aside, says so, and lists it in the report; git outside then runs no
// planted hook.
func TestGitRedirectQuarantined(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		report := filepath.Join(repo, "report.json")
		r := run(t, m, "run", "-w", repo, "--cwd", repo, "--report", report, "--", "sh", "-c",
			`mkdir -p evil/hooks && printf '#!/bin/sh\necho planted > PLANTED\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && cp .git/config evil/config && echo ../evil > .git/commondir && echo redirected`)
		if r.code != 0 || !strings.Contains(r.stdout, "redirected") {
			t.Fatalf("the member could not plant the redirect: %+v", r)
		}
		mustNotExist(t, filepath.Join(repo, ".git/commondir"))
		if !strings.Contains(r.stderr, "commondir appeared during the run") {
			t.Errorf("no warning on stderr: %q", r.stderr)
		}
		if b, _ := os.ReadFile(report); !strings.Contains(string(b), `"git_redirects": [`+"\n"+`      "`+filepath.Join(repo, ".git/commondir")) {
			t.Errorf("the report does not list the redirect:\n%s", b)
		}
		c := exec.Command("git", "-C", repo, "-c", "safe.directory=*", "-c", "user.email=u@acbox", "-c", "user.name=u", "commit", "-q", "--allow-empty", "-m", "after")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git commit outside: %v: %s", err, out)
		}
		mustNotExist(t, filepath.Join(repo, "PLANTED"))
	})
}

// TestGitRedirectTricks: the ways a member could keep its redirect past
// the check: taking the quarantine name in advance (it knows its sandbox
// id), making .git unwritable or unsearchable, and leaving a nested child
// that writes the redirect after its requester's member exited. Each
// time the redirect is gone afterwards and git outside runs no planted
// hook.
func TestGitRedirectTricks(t *testing.T) {
	plant := `mkdir -p evil/hooks && printf '#!/bin/sh\necho planted > PLANTED\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && cp .git/config evil/config && `
	tricks := map[string][]string{
		"name taken":   {"--", "sh", "-c", plant + `touch .git/commondir.acbox-quarantine-$ACBOX_ID && echo ../evil > .git/commondir`},
		"unwritable":   {"--", "sh", "-c", plant + `echo ../evil > .git/commondir && chmod a-w .git`},
		"unsearchable": {"--", "sh", "-c", plant + `echo ../evil > .git/commondir && chmod 000 .git`},
		"nested child": {"--delegate", "--", "sh", "-c", plant + `(acbox run -w "$PWD" --cwd "$PWD" -- sh -c 'while :; do echo ../evil > .git/commondir 2>/dev/null; sleep 0.05; done' &) ; sleep 1`},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for name, args := range tricks {
			t.Run(name, func(t *testing.T) {
				repo := newRepo(t, m)
				r := run(t, m, append([]string{"run", "-w", repo, "--cwd", repo}, args...)...)
				if !strings.Contains(r.stderr, "commondir appeared during the run") {
					t.Errorf("no warning (exit %d): %s", r.code, r.stderr)
				}
				os.Chmod(filepath.Join(repo, ".git"), 0o755) // as the user would, to use git again
				mustNotExist(t, filepath.Join(repo, ".git/commondir"))
				c := exec.Command("git", "-C", repo, "-c", "safe.directory=*", "-c", "user.email=u@acbox", "-c", "user.name=u", "commit", "-q", "--allow-empty", "-m", "after")
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git commit outside: %v: %s", err, out)
				}
				mustNotExist(t, filepath.Join(repo, "PLANTED"))
			})
		}
	})
}

// TestUnprotectConfig: --unprotect .git/config makes the config writable;
// the hooks stay read-only.
func TestUnprotectConfig(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		probe(t, m, repo, []string{"--unprotect", ".git/config"}, `
yes config-git   '$G config acbox.test yes'
no  hook-create  'echo x > .git/hooks/pre-commit'
`)
		if b, _ := os.ReadFile(filepath.Join(repo, ".git/config")); !strings.Contains(string(b), "test = yes") {
			t.Errorf(".git/config was not written through --unprotect:\n%s", b)
		}
	})
}

// TestProtectFile: --protect build.sh keeps that file read-only.
func TestProtectFile(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		probe(t, m, repo, []string{"--protect", "build.sh"}, `
no  build-write   'echo "echo planted" >> build.sh'
no  build-replace 'rm -f build.sh'
no  build-rename  'mv build.sh b.sh'
yes build-read    'grep -qx "echo build" build.sh'
yes other-write   'echo x > other.sh'
`)
		if b, _ := os.ReadFile(filepath.Join(repo, "build.sh")); string(b) != "echo build\n" {
			t.Errorf("build.sh changed on the host: %q", b)
		}
	})
}

// TestExitScanReport: the report lists the FIFO, the symlink out of the
// grants and the setuid file the member made, and nothing that was there
// before.
func TestExitScanReport(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		os.Symlink("/etc/hostname", filepath.Join(repo, "old-link"))
		os.Lchown(filepath.Join(repo, "old-link"), m.uid, m.gid)
		report := filepath.Join(repo, ".git", "acbox-report.json")
		r := run(t, m, "run", "-w", repo, "--cwd", repo, "--report", report, "--", "sh", "-c",
			`mkfifo fifo && ln -s /etc/passwd passwd && ln -s build.sh inside-link && cp build.sh suid && mkdir d && cp build.sh d/sgid && { chmod 4755 suid; chmod 2755 d/sgid; true; } 2>/dev/null`)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var rep struct {
			Mounts []struct {
				Kind, Target string
			} `json:"mounts"`
			ExitScan *struct {
				NewSetuid       []string `json:"new_setuid"`
				NewDevices      []string `json:"new_devices"`
				NewFifos        []string `json:"new_fifos"`
				OutsideSymlinks []string `json:"outside_symlinks"`
				Truncated       bool     `json:"truncated"`
				Cap             int      `json:"cap"`
			} `json:"exit_scan"`
		}
		b, err := os.ReadFile(report)
		if err == nil {
			err = json.Unmarshal(b, &rep)
		}
		if err != nil || rep.ExitScan == nil {
			t.Fatalf("report: %v\n%s", err, b)
		}
		s := rep.ExitScan
		want := func(what string, got []string, w ...string) {
			if strings.Join(got, "|") != strings.Join(w, "|") {
				t.Errorf("%s: got %q, want %q", what, got, w)
			}
		}
		want("new_setuid", s.NewSetuid) // seccomp refuses the set-id modes (issue 11 part 3); none may appear
		want("new_fifos", s.NewFifos, filepath.Join(repo, "fifo"))
		want("outside_symlinks", s.OutsideSymlinks, filepath.Join(repo, "passwd")+" -> /etc/passwd")
		want("new_devices", s.NewDevices)
		if s.Truncated || s.Cap != 1_000_000 { // exitscan.Cap
			t.Errorf("truncated %v cap %d", s.Truncated, s.Cap)
		}
		kinds := map[string]bool{}
		for _, mr := range rep.Mounts {
			if mr.Kind == "protect" {
				kinds[strings.TrimPrefix(mr.Target, repo+"/")] = true
			}
		}
		if !kinds[".git/hooks"] || !kinds[".git/config"] {
			t.Errorf("report mounts lack the protect records: %v", kinds)
		}
	})
}
