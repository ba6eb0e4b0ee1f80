//go:build integration

package carveout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// gitAs runs the real git as the mode's user in dir (outside any sandbox,
// as the user would after the run) and returns its combined output.
func gitAs(m mode, dir string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + m.home, "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1"}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred}
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestUserGitRunsNothingPlanted: the member uses the real git inside the
// sandbox to plant a config whose core.fsmonitor creates a marker file,
// in each way below; afterwards the user's own git (status, and commit
// where there is a work tree), run from the repository and from a
// directory inside it that existed before, creates no marker and finds
// the repository's own git directory.
func TestUserGitRunsNothingPlanted(t *testing.T) {
	const fsm = `$G -C "$1" config core.fsmonitor "touch $M; false"`
	scenarios := map[string]string{
		// a repository of the member's in a directory that existed before
		"nested git init": `git init -q src && set -- src && ` + fsm,
		// a submodule: its own repository plus a gitlink in the index
		"gitlink submodule": `git init -q sub && set -- sub && ` + fsm + ` && $G -C sub commit -q --allow-empty -m s && git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub`,
		// the attack: .git made invalid, proj laid out as a bare repository
		"bare fallback": `mv .git/HEAD .git/HEAD.orig; echo 'ref: refs/heads/main' > HEAD && ln -s .git/objects objects && ln -s .git/refs refs && ln -s .git/index index && printf '[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch %s; false"\n' "$M" > config`,
		// a .git file in a directory that existed before, naming a git directory of the member's
		"gitdir file": `git init -q --bare store && git --git-dir=store config core.fsmonitor "touch $M; false" && git --git-dir=store config core.bare false && echo 'gitdir: ../store' > src/.git`,
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for name, script := range scenarios {
			t.Run(name, func(t *testing.T) {
				repo := newRepo(t, m)
				os.MkdirAll(filepath.Join(repo, "src"), 0o755)
				os.Lchown(filepath.Join(repo, "src"), m.uid, m.gid)
				marker := filepath.Join(repo, "MEMBER-RAN")
				pre, _ := gitAs(m, repo, "rev-parse", "--absolute-git-dir")
				r := run(t, m, "run", "-w", repo, "--cwd", repo, "--env", "M="+marker, "--", "sh", "-c",
					`G='git -c user.email=m@acbox -c user.name=m'; `+script+` && echo planted`)
				if !strings.Contains(r.stdout, "planted") {
					t.Fatalf("the member could not plant it (exit %d): %s", r.code, r.stderr)
				}
				os.Remove(marker) // the member's own git ran it inside the sandbox: that is allowed
				// no scenario touches src itself, so it must still be there
				// for checkUserGit, which passes over a src moved aside
				if _, err := os.Lstat(filepath.Join(repo, "src")); err != nil {
					t.Fatalf("src is gone after the run: %v\nacbox said:\n%s", err, r.stderr)
				}
				checkUserGit(t, m, repo, marker, pre, r.stderr)
			})
		}
	})
}

// TestGitWorkflowsInside: git's ordinary work inside the sandbox still
// works with objects and refs pinned and HEAD checked after the run, and
// leaves nothing for the check to undo.
func TestGitWorkflowsInside(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		repo := newRepo(t, m)
		probe(t, m, repo, nil, `
yes commit     'echo a > a && git add a && $G commit -q -m a'
yes switch-c   'git switch -q -c topic && echo b > b && git add b && $G commit -q -m b'
yes merge      'git switch -q main && echo c > c && git add c && $G commit -q -m c && $G merge -q --no-edit topic'
yes rebase     'git switch -q topic && $G rebase -q main'
yes stash      'echo d >> a && git stash -q && git stash pop -q'
yes gc         'git gc -q && ls .git/objects/pack/*.pack'
yes fsck       'git fsck --no-progress'
`)
		r := run(t, m, "run", "-w", repo, "--cwd", repo, "--", "true")
		if strings.Contains(r.stderr, "acbox:") {
			t.Errorf("acbox reported a change after plain git work: %s", r.stderr)
		}
		if out, err := gitAs(m, repo, "log", "--oneline"); err != nil || strings.Count(out, "\n") < 4 {
			t.Errorf("git log outside: %v\n%s", err, out)
		}
	})
}
