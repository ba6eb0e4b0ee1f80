//go:build integration

package carveout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The ways past the first git discovery check that an attacker found
// (issue 11): a gitlink in the index at a path git never writes (inside
// .git, or above the work tree, where no walk of the work tree looks), a
// directory of the work tree replaced by a symlink into a repository of
// the member's, and a config.worktree git reads once
// extensions.worktreeConfig is set. Each member uses the real git and perl
// (to write the paths git refuses to write itself); the user's real git
// runs afterwards, outside any sandbox.

// gitlinkAt makes the index name a gitlink at path: git update-index
// refuses such a path, so a same-length placeholder is rewritten in the
// index file (the repository's or a submodule's) and its checksum
// recomputed; it fails unless the index then names path.
func gitlinkAt(path string) string {
	ph := strings.Repeat("x", len(path))
	return `git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),` + ph + ` && I=$(git rev-parse --git-dir)/index perl -MDigest::SHA=sha1 -e 'local $/; open F,"<",$ENV{I} or die; $d=<F>; close F; $d=substr($d,0,-20); $d=~s/` + ph + `/` + strings.ReplaceAll(path, "/", `\/`) + `/ or die "no placeholder"; open F,">",$ENV{I} or die; print F $d.sha1($d); close F or die' && git ls-files -s | grep -qF -- '` + path + `'`
}

// evilAt makes a repository of the member's at dir whose fsmonitor
// creates the marker $M.
const evilAt = `mkrepo() { mkdir -p "$1/.git/objects" "$1/.git/refs" && echo 'ref: refs/heads/main' > "$1/.git/HEAD" && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > "$1/.git/config"; }; `

type redirect struct {
	before string // run as the user in the repository before the run ("" none)
	script string // the member's, in the repository
	above  bool   // grant the repository's parent, not the repository
}

var redirects = map[string]redirect{
	"gitlink in .git":                       {script: evilAt + `mkrepo .git/evil && ` + gitlinkAt(".git/evil")},
	"gitlink above the work tree":           {above: true, script: evilAt + `mkrepo ../evil && ` + gitlinkAt("../evil")},
	"gitlink in .git of a nested dir":       {script: evilAt + `mkrepo src/.git/x && ` + gitlinkAt("src/.git/x")},
	"directory replaced by a symlink":       {script: evilAt + `mkrepo .git/evil && mv src .git/evil/src-orig && ln -s .git/evil src`},
	"directory replaced by a symlink above": {above: true, script: evilAt + `mkrepo ../evil && rm -r src && ln -s ../evil src`},
	"config.worktree": {before: "config extensions.worktreeConfig true",
		script: `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > .git/config.worktree`},
}

// TestUserGitRedirectsClosed: after each redirect, the user's git status
// and commit from the repository and from src (when src is still there:
// a directory the member replaced is moved aside, not followed) run
// nothing of the member's and find the repository's own git directory.
func TestUserGitRedirectsClosed(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for name, rd := range redirects {
			t.Run(name, func(t *testing.T) {
				top := newTop(t, m)
				repo := filepath.Join(top, "proj")
				grant := repo
				if rd.above {
					grant = top
				}
				if rd.before != "" {
					if out, err := gitAs(m, repo, strings.Fields(rd.before)...); err != nil {
						t.Fatalf("%s: %v %s", rd.before, err, out)
					}
				}
				marker := filepath.Join(top, "MEMBER-RAN")
				pre, _ := gitAs(m, repo, "rev-parse", "--absolute-git-dir")
				r := run(t, m, "run", "-w", grant, "--cwd", repo, "--env", "M="+marker, "--", "sh", "-c", rd.script+` && echo planted`)
				if !strings.Contains(r.stdout, "planted") {
					t.Fatalf("the member could not plant it (exit %d): %s", r.code, r.stderr)
				}
				if !strings.Contains(r.stderr, "acbox: ") {
					t.Errorf("acbox said nothing of it (exit %d)", r.code)
				}
				os.Remove(marker)
				checkUserGit(t, m, repo, marker, pre, r.stderr)
			})
		}
	})
}

// newTop makes a directory holding the repository proj, with src/f
// committed, owned by the mode's user.
func newTop(t *testing.T, m mode) string {
	t.Helper()
	top, err := os.MkdirTemp(root, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(top, 0o755)
	repo := filepath.Join(top, "proj")
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	os.WriteFile(filepath.Join(repo, "src/f"), []byte("f\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"add", "."},
		{"-c", "user.email=u@acbox", "-c", "user.name=u", "commit", "-q", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	filepath.Walk(top, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, m.uid, m.gid) })
	return top
}

// checkUserGit runs the user's git status (from repo and src) and commit
// (from repo) and fails on the marker or another git directory found.
func checkUserGit(t *testing.T, m mode, repo, marker, pre, said string) {
	t.Helper()
	for _, dir := range []string{repo, filepath.Join(repo, "src")} {
		fi, err := os.Lstat(dir)
		if err != nil {
			continue // moved aside: the user cannot run git there
		}
		out, _ := gitAs(m, dir, "status") // through the link, as the user's cd would
		_, ran := os.Stat(marker)
		if !fi.IsDir() {
			t.Fatalf("%s is still a %v (git status there ran the member's command: %v)", dir, fi.Mode().Type(), ran == nil)
		}
		if ran == nil {
			t.Fatalf("git status in %s ran the member's command:\n%s\nacbox said:\n%s", dir, out, said)
		}
		if got, _ := gitAs(m, dir, "rev-parse", "--absolute-git-dir"); got != pre {
			t.Errorf("git in %s finds %q, before the run %q", dir, got, pre)
		}
	}
	if out, err := gitAs(m, repo, "-c", "user.email=u@acbox", "-c", "user.name=u", "commit", "-q", "--allow-empty", "-m", "after"); err != nil {
		t.Errorf("git commit outside: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("git commit ran the member's command")
	}
}

// TestClonedSubmodule: a repository with a real cloned submodule (its git
// directory under .git/modules holds logs/HEAD, the reflog) is launched,
// not refused; the submodule's config stays read-only; git works inside;
// and the user's git status, which enters the submodule, runs nothing the
// member planted in it (a gitlink in the submodule's own index).
func TestClonedSubmodule(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		top := newTop(t, m)
		repo := filepath.Join(top, "proj")
		lib := filepath.Join(top, "libsrc")
		id := []string{"-c", "user.email=u@acbox", "-c", "user.name=u"}
		for _, c := range [][]string{{"init", "-q", "-b", "main", lib}, append(append([]string{"-C", lib}, id...), "commit", "-q", "--allow-empty", "-m", "lib"),
			{"-C", repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib"}, append(append([]string{"-C", repo}, id...), "commit", "-q", "-m", "add lib")} {
			if out, err := gitAs(m, top, c...); err != nil {
				t.Fatalf("git %v: %v: %s", c, err, out)
			}
		}
		marker := filepath.Join(top, "MEMBER-RAN")
		pre, _ := gitAs(m, repo, "rev-parse", "--absolute-git-dir")
		r := run(t, m, "run", "-w", top, "--cwd", repo, "--env", "M="+marker, "--", "sh", "-c", evilAt+`
if echo x >> .git/modules/lib/config; then echo "BAD submodule config writable"; fi
git -C lib -c user.email=m@acbox -c user.name=m commit -q --allow-empty -m inside || echo "BAD commit in the submodule"
cd lib && mkrepo ../../evil && `+gitlinkAt("../../evil")+` && echo planted`)
		if r.code != 0 && strings.Contains(r.stderr, "refused") {
			t.Fatalf("a repository with a cloned submodule is refused: %s", r.stderr)
		}
		if !strings.Contains(r.stdout, "planted") || strings.Contains(r.stdout, "BAD") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		os.Remove(marker)
		checkUserGit(t, m, repo, marker, pre, r.stderr)
		out, _ := gitAs(m, filepath.Join(repo, "lib"), "status")
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git status in the submodule ran the member's command:\n%s", out)
		}
	})
}
