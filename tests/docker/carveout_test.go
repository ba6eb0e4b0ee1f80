//go:build integration

package docker_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
)

// carvePrelude: `yes NAME CMD` expects CMD to succeed, `no NAME CMD` to
// fail; each prints "ok NAME" or "BAD NAME: ..." (busybox sh).
const carvePrelude = `
yes() { if out=$(eval "$2" 2>&1); then echo "ok $1"; else echo "BAD $1: expected success: $2: $out"; fi; }
no()  { if out=$(eval "$2" 2>&1); then echo "BAD $1: expected failure: $2: $out"; else echo "ok $1 ($out)"; fi; }
`

// gitRepo makes what the built-in carve-outs look for, without git (the
// test image is busybox): a write grant with .git/hooks and .git/config.
func gitRepo(t *testing.T) string {
	t.Helper()
	_, rw := dirs(t)
	git := filepath.Join(rw, ".git")
	os.MkdirAll(filepath.Join(git, "hooks"), 0o755)
	os.MkdirAll(filepath.Join(git, "objects"), 0o755)
	os.WriteFile(filepath.Join(git, "hooks", "pre-commit.sample"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	return rw
}

// TestCarveoutsEnforced: as natively, .git/hooks and .git/config are
// read-only inside the write grant, .git and what lies above them cannot
// be renamed (mount points: EBUSY), and the rest of .git is writable, as
// git needs it (objects, HEAD through a lock file renamed over it).
func TestCarveoutsEnforced(t *testing.T) {
	e := setup(t)
	repo := gitRepo(t)
	report := filepath.Join(t.TempDir(), "report.json")
	r := e.sh(t, carvePrelude+`
no hook-write 'echo "touch /tmp/pwned" > .git/hooks/pre-commit'
no hook-remove 'rm .git/hooks/pre-commit.sample'
no config-append 'echo "[core] hooksPath = /tmp" >> .git/config'
no config-rename-over 'echo x > .git/config.lock && mv .git/config.lock .git/config'
no git-rename 'mv .git .git2'
no hooks-rename 'mv .git/hooks .git/hooks2'
no config-rename 'mv .git/config .git/config2'
yes description 'echo ok > .git/description'
yes head-lock 'echo "ref: refs/heads/other" > .git/HEAD.lock && mv .git/HEAD.lock .git/HEAD'
yes objects 'mkdir -p .git/objects/ab && echo o > .git/objects/ab/cd'
yes worktree 'echo w > file'
grep -- "$PWD/.git" /proc/self/mountinfo
`, "-w", repo, "--cwd", repo, "--report", report)
	if r.code != 0 || strings.Contains(r.out, "BAD") || okLines(r.out) != 11 {
		t.Fatalf("code %d\nout:\n%s\nerr:\n%s", r.code, r.out, r.errout)
	}
	for _, name := range []string{"git-rename", "hooks-rename", "config-rename"} {
		if l := lineOf(r.out, "ok "+name+" "); !strings.Contains(l, "busy") {
			t.Errorf("%s failed, but not with EBUSY (a mount point): %s", name, l)
		}
	}
	checkStacking(t, r.out, repo+"/.git")
	b, _ := os.ReadFile(filepath.Join(repo, ".git", "config"))
	if strings.Contains(string(b), "hooksPath") {
		t.Errorf(".git/config written: %s", b)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted")
	}
	checkCarveReport(t, report, repo)
	e.noneLeft(t)
}

// checkStacking requires the native result from the container's
// mountinfo: .git a writable mount (the pin) on the grant, and hooks and
// config read-only mounts on top of it (their parent is the pin), not
// beneath it, where the pin would hide them.
func checkStacking(t *testing.T, out, git string) {
	t.Helper()
	type mnt struct{ id, parent, opts string }
	at := map[string]mnt{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[3] == f[4] {
			at[f[4]] = mnt{f[0], f[1], f[5]}
		}
	}
	pin, ok := at[git]
	if !ok || !strings.HasPrefix(pin.opts, "rw") {
		t.Fatalf("%s is not a writable mount point in the container:\n%s", git, out)
	}
	for _, p := range []string{git + "/hooks", git + "/config"} {
		if m, ok := at[p]; !ok || !strings.HasPrefix(m.opts, "ro") || m.parent != pin.id {
			t.Errorf("%s is not a read-only mount on top of the .git pin (%+v, pin %+v):\n%s", p, m, pin, out)
		}
	}
}

// okLines counts the lines starting "ok ".
func okLines(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ok ") {
			n++
		}
	}
	return n
}

// lineOf is the first line of out containing s.
func lineOf(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// checkCarveReport: the report lists the pin and the read-only carve-outs
// with the native backend's kinds, and says the read-only state was checked.
func checkCarveReport(t *testing.T, path, repo string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep policy.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{repo + "/.git": "pin", repo + "/.git/hooks": "protect", repo + "/.git/config": "protect"}
	for _, m := range rep.Mounts {
		if k, ok := want[m.Target]; ok && m.Kind == k && m.Ino != 0 {
			delete(want, m.Target)
		}
	}
	if len(want) > 0 {
		t.Errorf("report lacks carve-outs %v: %s", want, b)
	}
}

// TestCarveoutUnprotect: --unprotect .git/hooks leaves the hooks writable
// (and .git unpinned unless the config still needs it).
func TestCarveoutUnprotect(t *testing.T) {
	e := setup(t)
	repo := gitRepo(t)
	r := e.sh(t, carvePrelude+`
yes hook-write 'echo "#!/bin/sh" > .git/hooks/pre-commit'
no config-append 'echo x >> .git/config'
`, "-w", repo, "--cwd", repo, "--unprotect", ".git/hooks")
	if r.code != 0 || strings.Contains(r.out, "BAD") || okLines(r.out) != 2 {
		t.Fatalf("code %d\nout:\n%s\nerr:\n%s", r.code, r.out, r.errout)
	}
}

// TestCarveoutSwapCaught replaces .git/hooks with another directory after
// the sources are held and before the container is created. Docker binds
// by path at start, so the container would mount the new directory; the
// gate must see that it is not the one held, before any member code runs.
func TestCarveoutSwapCaught(t *testing.T) {
	e := setup(t)
	repo := gitRepo(t)
	hooks := filepath.Join(repo, ".git", "hooks")
	swap := func() {
		os.Rename(hooks, hooks+".orig")
		os.Mkdir(hooks, 0o777)
	}
	spec := policy.Spec{Command: []string{"touch", repo + "/MEMBER-RAN"}, Cwd: repo,
		Access: policy.Access{Write: []string{repo}}}
	_, err := e.launch(t, spec, docker.Hooks{BeforeStart: swap})
	if err == nil || !strings.Contains(err.Error(), "is not the one that was checked") {
		t.Fatalf("launch with swapped hooks: %v; want the swap caught", err)
	}
	if _, err := os.Stat(filepath.Join(repo, "MEMBER-RAN")); err == nil {
		t.Error("member code ran although the hooks were swapped")
	}
	e.noneLeft(t)
}

// TestGitRedirectsUndone: the native guarantees under docker. The member
// makes .git invalid and lays the work tree out as a bare repository (the
// issue's attack), plants a `.git` file in a directory that existed
// before, and adds a submodule git directory; objects and refs cannot be
// moved (pins). After the run HEAD is restored, everything new is moved
// aside with a message naming it, and the report lists each path.
func TestGitRedirectsUndone(t *testing.T) {
	e := setup(t)
	repo := gitRepo(t)
	os.MkdirAll(filepath.Join(repo, ".git", "refs", "heads"), 0o755)
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	report := filepath.Join(t.TempDir(), "report.json")
	r := e.sh(t, carvePrelude+`
no objects-moved 'mv .git/objects .git/objects.x'
no refs-moved 'mv .git/refs .git/refs.x'
yes head-moved 'mv .git/HEAD .git/HEAD.orig'
yes bare 'echo "ref: refs/heads/main" > HEAD && ln -s .git/objects objects && ln -s .git/refs refs && printf "[core]\n\tfsmonitor = evil\n" > config'
yes gitfile 'echo "gitdir: ../evil" > src/.git'
yes submodule 'mkdir -p .git/modules/x/objects .git/modules/x/refs x && echo "ref: refs/heads/main" > .git/modules/x/HEAD && echo "gitdir: ../.git/modules/x" > x/.git'
`, "-w", repo, "--cwd", repo, "--report", report)
	if r.code != 0 || strings.Contains(r.out, "BAD") || okLines(r.out) != 6 {
		t.Fatalf("code %d\nout:\n%s\nerr:\n%s", r.code, r.out, r.errout)
	}
	if b, err := os.ReadFile(filepath.Join(repo, ".git", "HEAD")); err != nil || string(b) != "ref: refs/heads/main\n" {
		t.Errorf(".git/HEAD not restored: %q %v", b, err)
	}
	said := map[string]string{"HEAD": "appeared", "src/.git": "appeared", "x/.git": "appeared", ".git/modules/x": "appeared"}
	checkUndone(t, r, repo, report, said, 5)
	e.noneLeft(t)
}

// TestGitRedirectsUndoneAttack: the ways past the first check (issue 11's
// attack), under docker: the index names a gitlink inside .git, beside a
// repository of the member's there (git status would enter it); src, a
// directory before the run, becomes a symlink into that repository; and a
// config.worktree appears. Each is moved aside and named; the index was
// written on the host (busybox has no git) for the member to copy.
func TestGitRedirectsUndoneAttack(t *testing.T) {
	e := setup(t)
	repo := gitRepo(t)
	os.MkdirAll(filepath.Join(repo, ".git", "refs", "heads"), 0o755)
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	os.WriteFile(filepath.Join(repo, "planted-index"), gitlinkIndex(".git/evil"), 0o644)
	report := filepath.Join(t.TempDir(), "report.json")
	r := e.sh(t, carvePrelude+`
yes evil-repo 'mkdir -p .git/evil/.git/objects .git/evil/.git/refs && echo "ref: refs/heads/main" > .git/evil/.git/HEAD && printf "[core]\n\tfsmonitor = evil\n" > .git/evil/.git/config'
yes gitlink 'cp planted-index .git/index'
yes symlink 'mv src .git/evil/src-orig && ln -s .git/evil src'
yes config-worktree 'printf "[core]\n\tfsmonitor = evil\n" > .git/config.worktree'
`, "-w", repo, "--cwd", repo, "--report", report)
	if r.code != 0 || strings.Contains(r.out, "BAD") || okLines(r.out) != 4 {
		t.Fatalf("code %d\nout:\n%s\nerr:\n%s", r.code, r.out, r.errout)
	}
	said := map[string]string{".git/index": "was changed", ".git/evil/.git": "appeared", "src": "was changed", ".git/config.worktree": "appeared"}
	checkUndone(t, r, repo, report, said, 4)
	e.noneLeft(t)
}

// checkUndone: each path of said (relative to repo) is gone, acbox's
// message names it with its verb ("appeared", "was changed"), and the
// report's exit scan lists want git redirects.
func checkUndone(t *testing.T, r result, repo, report string, said map[string]string, want int) {
	t.Helper()
	for p, verb := range said {
		if _, err := os.Lstat(filepath.Join(repo, p)); err == nil {
			t.Errorf("%s is left in place", p)
		}
		if !strings.Contains(r.errout, filepath.Join(repo, p)+" "+verb+" during the run") {
			t.Errorf("no message names %s: %s", p, r.errout)
		}
	}
	b, _ := os.ReadFile(report)
	var rep struct {
		ExitScan struct {
			GitRedirects []string `json:"git_redirects"`
		} `json:"exit_scan"`
	}
	json.Unmarshal(b, &rep)
	if len(rep.ExitScan.GitRedirects) != want {
		t.Errorf("exit_scan.git_redirects %q, want %d paths", rep.ExitScan.GitRedirects, want)
	}
}

// gitlinkIndex is a version 2 index whose only entry is a gitlink at path
// (as coordinator/probe writes one: git itself refuses such paths).
func gitlinkIndex(path string) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, [2]uint32{2, 1})
	b.Write(make([]byte, 24))
	binary.Write(&b, binary.BigEndian, uint32(0o160000))
	b.Write(make([]byte, 12))
	b.Write(bytes.Repeat([]byte{0x11}, 20))
	binary.Write(&b, binary.BigEndian, uint16(len(path)))
	b.WriteString(path)
	for b.Len()-12 < (62+len(path)+8)&^7 {
		b.WriteByte(0)
	}
	sum := sha1.Sum(b.Bytes())
	return append(b.Bytes(), sum[:]...)
}
