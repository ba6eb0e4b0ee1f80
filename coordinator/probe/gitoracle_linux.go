package probe

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The oracle of the git scenarios: git's discovery, as git's setup.c does
// it, written out independently of acbox's gitguard so that the two are
// not wrong together.

// gone marks a directory the user can no longer enter (the member removed
// it, or acbox moved aside the link that replaced it): git runs nowhere
// from there.
const gone = "(gone)"

// discover returns the git directory git finds from dir, walking up to
// ceiling (exclusive): "" for none, "!PATH" where git would stop with an
// error (an invalid `.git` file). Like git, it starts from the physical
// directory (getcwd after the user's cd followed any link).
func discover(dir, ceiling string) string {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return gone
	}
	for d := dir; strings.HasPrefix(d, ceiling+"/"); d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		fi, err := os.Stat(dot) // git follows a link here
		switch {
		case err == nil && fi.Mode().IsRegular():
			target, ok := gitfileTarget(dot)
			if !ok || !isGitDir(target) {
				return "!" + dot
			}
			return target
		case err == nil && isGitDir(dot):
			return dot
		}
		if isGitDir(d) {
			return d
		}
	}
	return ""
}

func gitfileTarget(file string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	p, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(file), p)
	}
	return filepath.Clean(p), true
}

// isGitDir is git's is_git_directory: a valid HEAD, and objects and refs
// searchable in the common directory.
func isGitDir(d string) bool {
	if !headValid(filepath.Join(d, "HEAD")) {
		return false
	}
	common := d
	if b, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(d, c)
		}
		common = c
	}
	return unix.Access(filepath.Join(common, "objects"), unix.X_OK) == nil && unix.Access(filepath.Join(common, "refs"), unix.X_OK) == nil
}

func headValid(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, _ := os.Readlink(p)
		return strings.HasPrefix(t, "refs/")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	if len(b) > 255 {
		b = b[:255]
	}
	if rest, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		return bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("refs/"))
	}
	return len(b) >= 40 && strings.Trim(string(b[:40]), "0123456789abcdefABCDEF") == ""
}

// gitSnap is what the judge compares: the git directory found from each
// place, and the identity and content of its config and hooks.
type gitSnap struct {
	found  map[string]string
	config string
	ids    map[string][2]uint64
}

func gitState(proj string) (gitSnap, error) {
	s := gitSnap{found: map[string]string{}, ids: map[string][2]uint64{}}
	// Above the repository, at the fixture's write directory's parent: the
	// member cannot write there. A scenario's write grant may lie inside
	// the work tree (proj/src): git run there finds proj/.git, and a .git
	// the member adds in the grant would be found first.
	ceiling := filepath.Dir(filepath.Dir(filepath.Dir(proj)))
	for _, d := range []string{proj, filepath.Join(proj, "src"), filepath.Join(proj, "src", "deep")} {
		s.found[d] = discover(d, ceiling)
	}
	b, err := os.ReadFile(filepath.Join(proj, ".git", "config"))
	s.config = string(b)
	for _, n := range []string{".git", ".git/config", ".git/hooks"} {
		fi, err := os.Lstat(filepath.Join(proj, n))
		if err != nil {
			return s, err
		}
		st := fi.Sys().(*syscall.Stat_t)
		s.ids[n] = [2]uint64{st.Dev, st.Ino}
	}
	return s, err
}

// judgeGit compares the state after the run with the one before, and
// looks for anything git would still run from.
func judgeGit(proj string, before gitSnap) Outcome {
	after, err := gitState(proj)
	if err != nil {
		return failf("after the run: %v", err)
	}
	for d, want := range before.found {
		if got := after.found[d]; got != want && got != gone {
			return failf("git run from %s finds %q, before the run %q", d, got, want)
		}
	}
	if after.config != before.config || fmt.Sprint(after.ids) != fmt.Sprint(before.ids) {
		return failf("the repository's config or hooks are not the ones from before the run")
	}
	for _, n := range []string{"commondir", "config.worktree", "rebase-merge", "rebase-apply", "sequencer"} { // none in the fixture
		if _, err := os.Lstat(filepath.Join(proj, ".git", n)); err == nil {
			return failf(".git/%s is left: git would follow it", n)
		}
	}
	if extra := otherGitEntries(proj); len(extra) > 0 {
		return failf("the work tree holds %v: git status enters a submodule there", extra)
	}
	return passf("")
}

// otherGitEntries lists `.git` entries in the work tree besides its own,
// inside git directories too (an index can name a gitlink at .git/x).
func otherGitEntries(proj string) []string {
	var out []string
	filepath.WalkDir(proj, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" && p != filepath.Join(proj, ".git") {
			out = append(out, strings.TrimPrefix(p, proj+"/"))
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
