//go:build integration

package carveout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// userGit runs git in repo as the test process, as the user would after
// the run.
func userGit(t *testing.T, repo string, args ...string) {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", repo, "-c", "safe.directory=*", "-c", "user.email=u@acbox", "-c", "user.name=u"}, args...)...)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// TestHooksPathProtected: the user keeps hooks in the work tree (`git
// config core.hooksPath .husky`, as husky does). The member can neither
// plant a hook there nor move the directory away, and the user's next
// commit after the run runs nothing the member wrote.
func TestHooksPathProtected(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		userGit(t, repo, "config", "core.hooksPath", ".husky")
		husky := filepath.Join(repo, ".husky")
		if err := os.Mkdir(husky, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Lchown(husky, m.uid, m.gid)
		probe(t, m, repo, nil, `
yes commit            '$G commit -q --allow-empty -m inside'
no  husky-rename      'mv .husky .husky.old && mv .husky.old .husky'
no  hook-create       'printf "#!/bin/sh\necho planted > PLANTED\n" > .husky/pre-commit && chmod +x .husky/pre-commit'
yes write-beside      'echo x > notes.txt'
`)
		mustNotExist(t, filepath.Join(husky, "pre-commit"))
		userGit(t, repo, "commit", "-q", "--allow-empty", "-m", "after")
		mustNotExist(t, filepath.Join(repo, "PLANTED"))
	})
}

// TestHooksPathMissing: a hooks directory core.hooksPath names inside the
// grant that does not exist is refused with the remedy (the member could
// create it); --unprotect hookspath launches anyway.
func TestHooksPathMissing(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		userGit(t, repo, "config", "core.hooksPath", ".githooks")
		r := run(t, m, "run", "-w", repo, "--", "true")
		if r.code == 0 || !strings.Contains(r.stderr, "mkdir "+filepath.Join(repo, ".githooks")) || !strings.Contains(r.stderr, "--unprotect hookspath") {
			t.Errorf("launch not refused with the remedy: %+v", r)
		}
		if r = run(t, m, "run", "-w", repo, "--unprotect", "hookspath", "--", "true"); r.code != 0 {
			t.Errorf("--unprotect hookspath did not launch: %+v", r)
		}
	})
}
