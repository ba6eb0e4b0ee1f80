package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Grant is one directory the member may read, or read and write.
// Dev and Ino are what the path was when the plan was made; the backend
// refuses to mount anything else there (a directory swapped in between).
type Grant struct {
	Path  string `json:"path"`
	Write bool   `json:"write"`
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
}

// canonical makes p absolute (relative to h.Cwd), and requires that it
// exists and equals its real path; it returns what is there. kind names it
// in errors ("grant", "mount source"). For a nested launch the path is
// judged once against the requesting sandbox's view and what the judgment
// found is returned (requester.go): nothing looks it up again.
func canonical(p string, h Host, kind string) (string, fs.FileInfo, error) {
	if p == "" {
		return "", nil, invalid("%s: empty path", kind)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(h.Cwd, p)
	}
	abs = filepath.Clean(abs)
	real, fi, err := realPath(p, abs, h, kind)
	if err != nil {
		return "", nil, err
	}
	if real != abs {
		return "", nil, refuse(p, kind+" is not canonical: it goes through a symlink to "+Quote(real), "name the real path "+Quote(real))
	}
	return abs, fi, nil
}

// realPath resolves abs: on the host, by its symlinks and then what is
// there; for a nested launch, by one judgment.
func realPath(p, abs string, h Host, kind string) (string, fs.FileInfo, error) {
	if h.Requester != nil {
		j, err := judgeNamed(h.Requester, abs, "is a nested launch's "+kind+", but")
		if err != nil {
			return "", nil, err
		}
		if j.info == nil {
			return "", nil, refuse(p, kind+" does not exist", "create it first or fix the path")
		}
		return j.real, j.info, nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, refuse(p, kind+" does not exist", "create it first or fix the path")
	}
	if err != nil {
		return "", nil, refuse(p, kind+" cannot be resolved: "+err.Error(), "")
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return "", nil, refuse(p, kind+" cannot be inspected: "+err.Error(), "")
	}
	return real, fi, nil
}

// resolveGrant checks one grant and returns its canonical path and identity.
func resolveGrant(p string, write bool, h Host) (string, fs.FileInfo, error) {
	abs, fi, err := canonical(p, h, "grant")
	if err != nil {
		return "", nil, err
	}
	if !fi.IsDir() {
		return "", nil, refuse(p, "grant is not a directory", "grant its directory, or pass a file with --mount SRC:DST:ro")
	}
	if err := checkRefused(abs, write, h); err != nil {
		return "", nil, err
	}
	return abs, fi, nil
}

// resolveGrants returns every grant, canonical, deduplicated (write wins
// over read for the same path) and sorted so that parents come first.
func resolveGrants(a Access, h Host) ([]Grant, error) {
	seen := map[string]int{}
	var out []Grant
	add := func(p string, write bool, field string) error {
		abs, fi, err := resolveGrant(p, write, h)
		if err != nil {
			return AtField(field, err)
		}
		if i, ok := seen[abs]; ok {
			out[i].Write = out[i].Write || write
			return nil
		}
		seen[abs] = len(out)
		dev, ino := fileIdent(fi)
		out = append(out, Grant{Path: abs, Write: write, Dev: dev, Ino: ino})
		return nil
	}
	for i, p := range a.Write {
		if err := add(p, true, fmt.Sprintf("access.write[%d]", i)); err != nil {
			return nil, err
		}
	}
	for i, p := range a.Read {
		if err := add(p, false, fmt.Sprintf("access.read[%d]", i)); err != nil {
			return nil, err
		}
	}
	sortParentsFirst(out, func(i int) string { return out[i].Path })
	return out, nil
}

// sortParentsFirst orders paths so that a directory precedes everything
// mounted beneath it: by depth, then by name for a stable plan.
func sortParentsFirst[T any](s []T, path func(int) string) {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	keys := make([]string, len(s))
	for i := range s {
		keys[i] = path(i)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		da, db := depth(keys[idx[a]]), depth(keys[idx[b]])
		if da != db {
			return da < db
		}
		return keys[idx[a]] < keys[idx[b]]
	})
	tmp := make([]T, len(s))
	for i, j := range idx {
		tmp[i] = s[j]
	}
	copy(s, tmp)
}

func depth(p string) int {
	n := 0
	for _, c := range p {
		if c == '/' {
			n++
		}
	}
	return n
}
