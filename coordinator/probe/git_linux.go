package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Git redirection: the member, with a write grant over a repository whose
// hooks and config are read-only, changes which git directory the user's
// git finds later, or adds one git enters on its own, with a config of its
// own (core.fsmonitor runs on every git status). Each scenario plants one
// such change through `acbox run` (a shell member: the steps are file
// operations) and is judged from outside after the run by gitoracle_linux.go:
// from the repository's root and from two directories inside it, git
// discovery finds the repository's own git directory, as before, with its
// own config and hooks, no commondir and no rebase in progress; and no
// other `.git` is left in the work tree for git status to enter.

// gitScenario is one way to redirect git discovery. script runs in the
// repository (proj, below the between directory "mid" in the write grant)
// and prints "planted" once the member's config is in place. gitlink, when
// set, is a path an index written beside the grant's top (planted-index)
// names as a gitlink, for the script to copy into .git; config is added to
// the repository's config before the run (what the user had set).
// index, when set, is written there instead (an index crafted against
// acbox's own parser). grant, when set, is the write grant relative to
// proj (a grant inside the work tree, which the script runs in) instead of
// the fixture's write directory; dirs are made in proj before the run;
// absent is a path relative to proj that must not exist after the run
// (what the member tried to write where it is kept read-only); bare, when
// set, is a bare repository made beside mid (top/BARE) before the run;
// worktree, when set, is a linked worktree of proj made at top/WORKTREE
// (git run there must still find proj's worktrees/wt after the run).
type gitScenario struct {
	id, expect, script, gitlink, config string
	grant, absent, bare, worktree       string
	dirs                                []string
	index                               func() []byte
}

// maxCheckKiB bounds acbox's peak memory through a scenario: what the
// member writes must not make the checks after the run take the host's
// memory (gitguard holds an index of up to 128 MiB for a moment).
const maxCheckKiB = 200 << 10

// mkrepo makes a git directory of the member's at $1 with evilConfig.
const mkrepo = `mkrepo() { mkdir -p "$1/objects" "$1/refs" && echo 'ref: refs/heads/main' > "$1/HEAD" && ` + evilConfig + `"$1/config"; }; `

// evilConfig writes a config that would run the member's command.
const evilConfig = `printf '[core]\n\tbare = false\n\tfsmonitor = "touch ../../MEMBER-RAN; false"\n' > `

func gitScenarios() []gitScenario {
	return []gitScenario{
		{id: "life.git-bare-fallback", expect: "the issue's attack (HEAD moved away, proj laid out as a bare repository reusing .git's objects and refs) is undone",
			script: `mv .git/HEAD .git/HEAD.orig; echo 'ref: refs/heads/main' > HEAD && ln -s .git/objects objects && ln -s .git/refs refs && ln -s .git/index index && ` + evilConfig + `config && printf '/HEAD\n/config\n' > .git/info-exclude && echo planted`},
		{id: "life.git-bad-head", expect: "garbage in .git/HEAD, with a bare layout in the work tree, is undone (HEAD restored, the layout moved aside)",
			script: `echo garbage > .git/HEAD && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && ` + evilConfig + `config && echo planted`},
		{id: "life.git-markers-moved", expect: ".git/objects and .git/refs cannot be renamed or removed away (pinned), so .git stays a git directory",
			script: `mv .git/objects .git/objects.x; mv .git/refs .git/refs.x; rmdir .git/refs 2>/dev/null; mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD && ` + evilConfig + `config && echo planted`},
		{id: "life.git-markers-chmod", expect: "taking the owner's permissions on .git/HEAD, objects and refs (so git skips .git) is undone",
			script: `mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && ` + evilConfig + `config && chmod 000 .git/HEAD .git/objects .git/refs && echo planted`},
		{id: "life.git-gitfile-subdir", expect: "a new `.git` file (gitdir:) in a directory of the work tree that existed before is moved aside",
			script: `mkdir -p ../evil/objects ../evil/refs && echo 'ref: refs/heads/main' > ../evil/HEAD && ` + evilConfig + `../evil/config && echo 'gitdir: ../../evil' > src/.git && echo planted`},
		{id: "life.git-dir-subdir", expect: "a new `.git` directory deep in the work tree is moved aside",
			script: `mkdir -p src/deep/.git/objects src/deep/.git/refs && echo 'ref: refs/heads/main' > src/deep/.git/HEAD && ` + evilConfig + `src/deep/.git/config && echo planted`},
		{id: "life.git-bare-between", expect: "a bare layout in the directory between the write grant and the repository, with .git made invalid, is undone",
			script: `echo nonsense > .git/HEAD && mkdir ../objects ../refs && echo 'ref: refs/heads/main' > ../HEAD && ` + evilConfig + `../config && echo planted`},
		{id: "life.git-submodule", expect: "a submodule the member adds (.git/modules/x and x/.git) is moved aside, so git status enters no repository of the member's",
			script: `mkdir -p .git/modules/x/objects .git/modules/x/refs x && echo 'ref: refs/heads/main' > .git/modules/x/HEAD && ` + evilConfig + `.git/modules/x/config && echo 'gitdir: ../.git/modules/x' > x/.git && echo planted`},
		{id: "life.git-worktree", expect: "a worktree the member adds (.git/worktrees/w with its own commondir, and a .git file naming it) is moved aside",
			script: `mkdir -p .git/worktrees/w ../evil/objects ../evil/refs src/wt && echo 'ref: refs/heads/main' > ../evil/HEAD && ` + evilConfig + `../evil/config && echo ../../../../evil > .git/worktrees/w/commondir && echo 'ref: refs/heads/main' > .git/worktrees/w/HEAD && echo 'gitdir: ../../.git/worktrees/w' > src/wt/.git && echo planted`},
		{id: "life.git-commondir", expect: "a .git/commondir naming a git directory of the member's is moved aside",
			script: `mkdir -p ../evil/objects ../evil/refs ../evil/hooks && echo 'ref: refs/heads/main' > ../evil/HEAD && ` + evilConfig + `../evil/config && echo ../../evil > .git/commondir && echo planted`},
		{id: "life.git-gitlink-in-gitdir", expect: "an index naming a gitlink inside .git (git status would enter .git/evil, a repository of the member's) is moved aside",
			gitlink: ".git/evil", script: mkrepo + `mkrepo .git/evil/.git && cp ../../planted-index .git/index && echo planted`},
		{id: "life.git-gitlink-above", expect: "an index naming a gitlink above the work tree (../evil, where no walk of the work tree looks) is moved aside",
			gitlink: "../evil", script: mkrepo + `mkrepo ../evil/.git && cp ../../planted-index .git/index && echo planted`},
		{id: "life.git-index-cut", expect: "an index cut short where its extended flags would be (which once crashed acbox's parser and skipped every check after the run) is moved aside, and a new `.git` beside it still is",
			index: cutIndex, script: `mkdir -p src/deep/.git/objects src/deep/.git/refs && echo 'ref: refs/heads/main' > src/deep/.git/HEAD && ` + evilConfig + `src/deep/.git/config && cp ../../planted-index .git/index && echo planted`},
		{id: "life.git-index-bomb", expect: "a version 4 index whose compressed paths spell out gigabytes (which once took acbox's memory until it was killed) is moved aside within bounds, and a new `.git` beside it still is",
			index: bombIndex, script: `mkdir -p src/deep/.git/objects src/deep/.git/refs && echo 'ref: refs/heads/main' > src/deep/.git/HEAD && ` + evilConfig + `src/deep/.git/config && cp ../../planted-index .git/index && echo planted`},
		{id: "life.git-dir-to-symlink", expect: "a directory of the work tree replaced by a symlink into .git, beside a repository of the member's there, is moved aside",
			script: mkrepo + `mkrepo .git/evil/.git && mv src .git/evil/src-orig && ln -s .git/evil src && echo planted`},
		{id: "life.git-deep-dir-to-symlink", expect: "a deep directory of the work tree replaced by a symlink out of it, to a repository of the member's, is moved aside",
			script: mkrepo + `mkrepo ../evil/.git && rm -r src/deep && ln -s ../../evil src/deep && echo planted`},
		{id: "life.git-config-worktree", expect: "a new .git/config.worktree (read as config, with its commands, once extensions.worktreeConfig is set) is moved aside",
			config: "[extensions]\n\tworktreeConfig = true\n", script: evilConfig + `.git/config.worktree && echo planted`},
		{id: "life.git-enclosing-init", grant: "src", expect: "with the write grant inside the work tree (-w proj/src), a git directory of the member's at the grant's root is moved aside, so git run there finds the repository's own again",
			script: mkrepo + `mkrepo .git && echo planted`},
		{id: "life.git-enclosing-deep", grant: "src", expect: "with the write grant inside the work tree, a new `.git` deep in the grant is moved aside",
			script: mkrepo + `mkrepo deep/.git && echo planted`},
		{id: "life.git-enclosing-hookspath", grant: "src", config: "[core]\n\thooksPath = src/hooks\n", dirs: []string{"src/hooks"}, absent: "src/hooks/pre-commit",
			expect: "with the write grant inside the work tree, the hooks directory the repository's relative core.hooksPath names in the grant is read-only",
			script: `printf '#!/bin/sh\ntouch ../../../MEMBER-RAN\n' > hooks/pre-commit 2>/dev/null; echo planted`},
		{id: "life.git-bare-hooks", bare: "remote.git", absent: "../../remote.git/hooks/post-receive",
			expect: "the hooks of a bare repository in the write grant (a local remote `git push` runs them in) are read-only",
			script: `printf '#!/bin/sh\ntouch ../MEMBER-RAN\n' > ../../remote.git/hooks/post-receive 2>/dev/null; echo planted`},
		{id: "life.git-bare-dotgit", bare: "remote.git", absent: "../../remote.git/.git",
			expect: "a git directory of the member's at remote.git/.git (git push to remote.git tries it first) is moved aside",
			script: mkrepo + `mkrepo ../../remote.git/.git && echo planted`},
		{id: "life.git-deep-worktree", worktree: "a/b/c/wt", config: "[core]\n\thooksPath = .githooks\n", dirs: []string{".githooks"}, absent: "../../a/b/c/wt/.githooks/pre-commit",
			expect: "a linked worktree of the repository five levels below the grant keeps its `.git` file and the hooks directory a relative core.hooksPath names there read-only",
			script: mkrepo + `mkrepo ../../evil.git; printf '#!/bin/sh\ntouch ../../../../MEMBER-RAN\n' > ../../a/b/c/wt/.githooks/pre-commit 2>/dev/null; echo "gitdir: $PWD/../../evil.git" > ../../a/b/c/wt/.git 2>/dev/null; echo planted`},
		{id: "life.git-rebase-exec", expect: "a rebase left in progress with an exec line (git rebase --continue would run it) is moved aside",
			script: `mkdir .git/rebase-merge && echo 'exec touch ../../MEMBER-RAN' > .git/rebase-merge/git-rebase-todo && echo refs/heads/main > .git/rebase-merge/head-name && echo planted`},
	}
}

// gitRedirects runs every scenario, each on a repository of its own.
func (r *Runner) gitRedirects() []Line {
	var out []Line
	for _, s := range gitScenarios() {
		out = append(out, life(s.id, s.expect, "issue 11; CVE-2022-24765 (git discovery), git-scm safe.bareRepository", r.gitScenario(s)))
	}
	out = append(out, life("life.git-two-sandboxes", "what one sandbox's check moved aside, put back by the member of a second sandbox that launched while it was there, is moved aside by the second's check",
		"issue 11 (an attacker's finding: concurrent sandboxes)", r.gitTwoSandboxes()))
	return out
}

func (r *Runner) gitScenario(s gitScenario) Outcome {
	top := filepath.Join(r.Fixture.Write, "git-"+randHex(4))
	proj := filepath.Join(top, "mid", "proj")
	defer removeGitFixture(top, proj)
	if err := makeGitFixture(proj); err != nil {
		return errorf("fixture: %v", err)
	}
	if err := s.prepare(top, proj); err != nil {
		return errorf("fixture: %v", err)
	}
	before, err := gitState(proj)
	if err != nil {
		return errorf("before the run: %v", err)
	}
	grant, cwd := r.Fixture.Write, proj
	if s.grant != "" {
		grant, cwd = filepath.Join(proj, s.grant), filepath.Join(proj, s.grant)
	}
	c := exec.Command(r.Exe, append(r.runFlags(), "--write", grant, "--cwd", cwd, "--", "sh", "-c", s.script)...)
	var errb strings.Builder
	c.Stderr = &errb
	done := make(chan []byte, 1)
	go func() { b, _ := c.Output(); done <- b }()
	var out []byte
	select {
	case out = <-done:
	case <-time.After(60 * time.Second):
		c.Process.Kill()
		return errorf("acbox did not finish within 60s")
	}
	if !strings.Contains(string(out), "planted") {
		return errorf("the member could not plant the redirect (exit %d): %s", c.ProcessState.ExitCode(), strings.TrimSpace(errb.String()))
	}
	if e := errb.String(); strings.Contains(e, "panic:") || strings.Contains(e, "fatal error:") {
		return failf("acbox crashed after the run, before its checks ended: %s", firstLines(e, 2))
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > maxCheckKiB {
		return failf("acbox grew to %d MiB checking what the member left (bound %d MiB)", ru.Maxrss>>10, maxCheckKiB>>10)
	}
	os.Chmod(filepath.Join(proj, ".git"), 0o755) // as the user would, to use git again
	if o := judgeGit(proj, before); o.Result != Pass {
		return o
	}
	if _, err := os.Lstat(filepath.Join(proj, s.absent)); s.absent != "" && err == nil {
		return failf("%s is there after the run: the member wrote it where it is kept read-only, or acbox left it", s.absent)
	}
	if wt := filepath.Join(top, s.worktree); s.worktree != "" && discover(wt, filepath.Dir(top)) != filepath.Join(proj, ".git", "worktrees", "wt") {
		return failf("git run from the worktree %s finds %q", wt, discover(wt, filepath.Dir(top)))
	}
	if s.gitlink != "" && indexNames(proj, s.gitlink) {
		return failf("the index still names a gitlink at %s: git status would enter it", s.gitlink)
	}
	if _, err := os.Lstat(filepath.Join(top, "MEMBER-RAN")); err == nil {
		return failf("the member's command ran outside the sandbox")
	}
	return passf("exit %d; discovery unchanged from proj, proj/src and proj/src/deep; acbox said: %s", c.ProcessState.ExitCode(), firstLines(errb.String(), 2))
}

// prepare writes the scenario's index and config additions.
func (s gitScenario) prepare(top, proj string) error {
	index := s.index
	if s.gitlink != "" {
		index = func() []byte { return gitlinkIndex(s.gitlink) }
	}
	if index != nil {
		if err := os.WriteFile(filepath.Join(top, "planted-index"), index(), 0o644); err != nil {
			return err
		}
	}
	if s.bare != "" {
		if err := makeBareFixture(filepath.Join(top, s.bare)); err != nil {
			return err
		}
	}
	if s.worktree != "" {
		if err := makeWorktreeFixture(proj, filepath.Join(top, s.worktree)); err != nil {
			return err
		}
	}
	for _, d := range s.dirs {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			return err
		}
	}
	if s.config == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(proj, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(s.config)
	return err
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = append(ls[:n], "...")
	}
	return strings.Join(ls, " | ")
}

// makeGitFixture makes a repository as git init leaves it, without git
// (the host of the escape suite need not have it), with src/deep.
func makeGitFixture(proj string) error {
	for _, d := range []string{".git/hooks", ".git/objects/info", ".git/objects/pack", ".git/refs/heads", ".git/refs/tags", ".git/info", "src/deep"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		".git/HEAD":        "ref: refs/heads/main\n",
		".git/config":      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
		".git/description": "fixture\n", "src/main.go": "package main\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// makeBareFixture makes a bare repository as git init --bare leaves it.
func makeBareFixture(dir string) error {
	for _, d := range []string{"hooks", "objects/info", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	for name, text := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": "[core]\n\tbare = true\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// makeWorktreeFixture makes a linked worktree of proj at wt, as git
// worktree add leaves it, with the directories of dirs there too.
func makeWorktreeFixture(proj, wt string) error {
	admin := filepath.Join(proj, ".git", "worktrees", "wt")
	for _, d := range []string{admin, filepath.Join(wt, ".githooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{filepath.Join(admin, "HEAD"): "ref: refs/heads/wt\n", filepath.Join(admin, "commondir"): "../..\n",
		filepath.Join(admin, "gitdir"): filepath.Join(wt, ".git") + "\n", filepath.Join(wt, ".git"): "gitdir: " + admin + "\n"}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// removeGitFixture removes a scenario's tree, first giving back the
// permissions a scenario may have taken (where acbox did not), so that a
// leftover repository cannot refuse the next launch in the shared grant.
func removeGitFixture(top, proj string) {
	for _, p := range []string{".git", ".git/objects", ".git/refs", ".git/HEAD"} { // the scenarios' chmod 000
		os.Chmod(filepath.Join(proj, p), 0o755)
	}
	os.RemoveAll(top)
}
