package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A write grant can lie inside a repository's work tree (-w ~/repo/src).
// The repository's git directory is then outside the grant, and its hooks
// and config need no carve-out, but git run from inside the grant finds
// that repository by walking up, and the member can change the answer: a
// new .git at the grant's root or anywhere below it is found first. So
// the repository is protected as if it sat at the grant's root: the hooks
// directory its core.hooksPath names is kept read-only where it falls in a
// write grant, and the launcher's check after the run (package gitguard)
// walks the grant and moves aside every new .git and bare layout in it.
//
// The repository is found as git's discovery finds it from the grant's
// root: upwards from the grant's parent, a directory holding `.git` (a
// directory with HEAD, or a regular file), or one that is itself a git
// directory (HEAD, objects and refs: the grant is inside a bare repository
// or a .git), stopping where git stops: below the deepest
// GIT_CEILING_DIRECTORIES entry above the grant, and at a change of
// filesystem unless GIT_DISCOVERY_ACROSS_FILESYSTEM is set. Ownership
// (safe.directory) is not consulted: git refuses a repository it does not
// trust rather than looking further up, and a user may trust it later, so
// protecting it costs only the walk.

// enclosingRepo returns the root of the repository git finds from the
// write grant at grant when grant itself holds none: a work tree's root,
// or a git directory that holds the grant. ok is false when git finds
// none. OwnGitDir stays false: the git directory is outside the grant.
func enclosingRepo(grant string) (ProtectedRepo, bool) {
	if _, err := os.Lstat(filepath.Join(grant, ".git")); err == nil || isGitDir(grant) {
		return ProtectedRepo{}, false // the grant's own repository: protected at its root
	}
	dev, ok := deviceOf(grant)
	if !ok {
		return ProtectedRepo{}, false
	}
	across := gitEnvBool("GIT_DISCOVERY_ACROSS_FILESYSTEM")
	ceiling := gitCeiling(grant)
	for d := filepath.Dir(grant); d != grant; grant, d = d, filepath.Dir(d) {
		if ceiling != "" && !strictlyWithin(d, ceiling) {
			return ProtectedRepo{}, false
		}
		if dv, ok := deviceOf(d); !ok || (!across && dv != dev) {
			return ProtectedRepo{}, false
		}
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && (fi.Mode().IsRegular() || hasHead(filepath.Join(d, ".git"))) {
			return ProtectedRepo{Root: d}, true
		}
		if isGitDir(d) {
			return ProtectedRepo{Root: d}, true
		}
	}
	return ProtectedRepo{}, false
}

// enclosingRepos lists, for each write grant, the repository enclosing it
// (enclosingRepo), with the grant it encloses.
func enclosingRepos(p *Plan) []ProtectedRepo {
	var out []ProtectedRepo
	for _, g := range p.Grants {
		if !g.Write {
			continue
		}
		if r, ok := enclosingRepo(g.Path); ok {
			r.Grant = g.Path
			out = append(out, r)
		}
	}
	return out
}

func hasHead(d string) bool {
	_, err := os.Lstat(filepath.Join(d, "HEAD"))
	return err == nil
}

func deviceOf(p string) (uint64, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}

// gitCeiling is the deepest GIT_CEILING_DIRECTORIES entry strictly above
// dir, "" for none. Like git, an entry is taken by its real path when it
// resolves; relative entries are ignored.
func gitCeiling(dir string) string {
	v, _ := gitLookupEnv("GIT_CEILING_DIRECTORIES")
	best := ""
	for _, c := range strings.Split(v, ":") {
		if !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if r, err := filepath.EvalSymlinks(c); err == nil {
			c = r
		}
		if strictlyWithin(dir, c) && len(c) > len(best) {
			best = c
		}
	}
	return best
}

func strictlyWithin(path, dir string) bool {
	return path != dir && within(path, dir)
}

// gitEnvBool reads a boolean as git's git_env_bool does (unset: false).
func gitEnvBool(name string) bool {
	v, ok := gitLookupEnv(name)
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}
