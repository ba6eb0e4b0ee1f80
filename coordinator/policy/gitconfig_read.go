package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Reading the user's git config files at launch, for core.hooksPath. The
// files are the user's, not the member's: the system and global files lie
// outside every write grant (one inside is refused), the repository's own
// config is a read-only carve-out, and an included file inside a write
// grant is refused. Symlinks are followed only outside write grants, by
// hand; files are opened with no symlink followed anywhere on the path
// (the path is resolved already) and read to gitConfigMaxSize.

var (
	gitConfigMaxSize  int64 = 1 << 20 // bytes read from one config file
	gitIncludeDepth         = 10      // git's own limit on nested includes
	gitConfigMaxFiles       = 64      // files read for one repository
	systemGitConfig         = "/etc/gitconfig"
	gitLookupEnv            = os.LookupEnv
)

// hooksPathCandidates returns every value core.hooksPath may have after
// reading files in order ("" for unset). An includeIf may or may not apply
// (its condition can name the branch, which the member moves), so both
// outcomes are kept.
func hooksPathCandidates(files []string, p *Plan, trusted map[string]bool) ([]string, error) {
	r := cfgReader{plan: p, trusted: trusted, judged: map[string]fs.FileInfo{}}
	state := []string{""}
	for _, f := range files {
		var err error
		if state, err = r.file(f, 0, state, false); err != nil {
			return nil, err
		}
	}
	return state, nil
}

type cfgReader struct {
	plan    *Plan
	trusted map[string]bool // config files inside write grants that are read-only carve-outs
	read    int
	judged  map[string]fs.FileInfo // includes a nested request named, as judged (requester.go)
}

// file applies one config file to the set of possible values. chosen: a
// file the requesting sandbox may have written names it (requester.go).
func (r *cfgReader) file(path string, depth int, state []string, chosen bool) ([]string, error) {
	entries, real, err := r.load(path, depth)
	if err != nil || entries == nil {
		return state, err
	}
	chosen = chosen || (r.plan.requester != nil && r.plan.requester.mayWrite(real))
	for _, e := range entries {
		if !e.Include {
			state = []string{e.Value}
			continue
		}
		if e.Value == "" {
			continue
		}
		inc, err := r.includeTarget(path, e)
		if err != nil {
			return nil, err
		}
		if chosen {
			// Judged before anything looks at it, and only what the
			// judgment found is read: a refusal that depended on what is
			// there would say it to the member.
			j, err := judgeNamed(r.plan.requester, inc, fmt.Sprintf("is included (line %d of %s) by git config the requesting sandbox may write, but", e.Line, path))
			if err != nil {
				return nil, err
			}
			if j.info == nil {
				continue // git skips a missing include
			}
			inc = j.real
			r.judged[inc] = j.info
		}
		next, err := r.file(inc, depth+1, state, chosen)
		if err != nil {
			return nil, err
		}
		if e.Cond != "" {
			next = unionStrings(state, next)
		}
		state = next
	}
	return state, nil
}

// load reads and parses one file, and says where it really is; a missing
// file is nil, nil (git skips it). An include a nested request chose was
// judged (file): it is read where the judgment found it, and only if it
// is still what was found.
func (r *cfgReader) load(path string, depth int) ([]gitConfigEntry, string, error) {
	if depth > gitIncludeDepth {
		return nil, "", refuse(path, fmt.Sprintf("is included more than %d levels deep in git config; acbox reads the config for core.hooksPath and will not stop early", gitIncludeDepth), "flatten the includes")
	}
	if r.read++; r.read > gitConfigMaxFiles {
		return nil, "", refuse(path, fmt.Sprintf("would be git config file number %d for one repository; acbox reads at most %d for core.hooksPath", r.read, gitConfigMaxFiles), "flatten the includes")
	}
	real, want := path, r.judged[path]
	if want == nil {
		var err error
		if real, err = resolveOutsideGrants(path, r.plan.Grants); err != nil {
			return nil, "", err
		}
	}
	if inWriteGrant(real, r.plan.Grants) && !r.trusted[real] {
		return nil, "", refuse(real, "is a git config file inside a write grant: the member could write core.hooksPath or an include into it, and git outside would run its hooks",
			"move the file out of the write grant or drop the include, or pass --unprotect hookspath")
	}
	data, err := readConfigFile(real, want)
	if want == nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
		return nil, real, nil
	}
	if err != nil {
		return nil, "", refuse(real, "git config cannot be read: "+err.Error(), "fix its permissions, or pass --unprotect hookspath")
	}
	entries, err := parseGitConfig(data)
	if err != nil {
		return nil, "", refuse(real, "git config cannot be parsed ("+err.Error()+"); git would reject it too", "fix the file")
	}
	if entries == nil {
		entries = []gitConfigEntry{}
	}
	return entries, real, nil
}

// readConfigFile reads path, which has no symlink on it (resolved by
// hand, or judged): one put there since is refused. want, when set, is
// what the judgment found there; anything else is refused alike.
func readConfigFile(path string, want fs.FileInfo) ([]byte, error) {
	f, err := openNoLinks(path)
	if err != nil {
		if want != nil {
			return nil, fmt.Errorf("it changed after acbox judged it")
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && want != nil && !os.SameFile(fi, want) {
		return nil, fmt.Errorf("it changed after acbox judged it")
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, gitConfigMaxSize+1))
	if err == nil && int64(len(data)) > gitConfigMaxSize {
		err = fmt.Errorf("larger than %d bytes", gitConfigMaxSize)
	}
	return data, err
}

// includeTarget: an include's path, relative to the including file's
// directory, ~/ for the home. The error names the line, not the value.
func (r *cfgReader) includeTarget(from string, e gitConfigEntry) (string, error) {
	p, err := gitExpandHome(e.Value, r.plan.Home)
	if err != nil {
		return "", refuse(from, fmt.Sprintf("line %d: the include names another user's home (~name), which acbox does not look up", e.Line), "fix the include")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	return filepath.Clean(p), nil
}

// gitExpandHome expands a leading ~ or ~/ (another user's ~name is refused:
// acbox does not look users up for this).
func gitExpandHome(v, home string) (string, error) {
	switch {
	case v == "~":
		return home, nil
	case strings.HasPrefix(v, "~/"):
		return filepath.Join(home, v[2:]), nil
	case strings.HasPrefix(v, "~"):
		return "", fmt.Errorf("another user's home (%s) is not supported", v)
	}
	return v, nil
}

// resolveOutsideGrants follows the symlinks of path that lie outside every
// write grant, and stops following once the path enters one: from there
// the rest is returned as written (a link there is the member's to
// replace; the carve-out check refuses it).
func resolveOutsideGrants(path string, grants []Grant) (string, error) {
	comps := splitPath(path)
	cur := "/"
	for hops := 0; len(comps) > 0; {
		next := filepath.Join(cur, comps[0])
		if inWriteGrant(next, grants) {
			return filepath.Join(append([]string{next}, comps[1:]...)...), nil
		}
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			cur, comps = next, comps[1:]
			continue
		}
		if hops++; hops > 40 {
			return "", refuse(path, "has too many levels of symlinks", "name the real path")
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", refuse(next, "cannot be read: "+err.Error(), "name the real path")
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(cur, t)
		}
		comps = append(splitPath(t), comps[1:]...)
		cur = "/"
	}
	return cur, nil
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.Clean("/"+p), "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

func unionStrings(a, b []string) []string {
	out := append([]string{}, a...)
	for _, s := range b {
		if !containsString(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
