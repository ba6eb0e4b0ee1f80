package policy

import (
	"path/filepath"
	"strings"
)

// refusedExact are paths no grant may be; refusedTrees also refuse
// everything beneath them.
var (
	refusedExact = []string{"/", "/tmp", "/run", "/var/run", "/var/tmp", "/home"}
	refusedTrees = []string{"/proc", "/dev", "/sys"}
	// systemTrees are shown read-only to every member; a write grant may not
	// equal, contain or sit inside them.
	systemTrees = []string{"/usr", "/etc", "/boot", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
)

// RefusedPaths returns the built-in refused list for a user (for the policy
// fingerprint and documentation).
func RefusedPaths(home, state string) []string {
	out := append([]string{}, refusedExact...)
	for _, t := range refusedTrees {
		out = append(out, t+"/**")
	}
	return append(out, home+" and its parents", state+" (contains or inside)")
}

// within reports whether p equals dir or lies beneath it. Both are clean
// absolute paths.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// checkRefused returns a RefusedError when a canonical path may not be
// granted. write selects the stricter rules for write grants.
func checkRefused(p string, write bool, h Host) error {
	for _, r := range refusedExact {
		if p == r {
			return refuse(p, "granting it would expose the whole of "+r, "grant a narrower directory inside it, for example your project")
		}
	}
	for _, r := range refusedTrees {
		if within(p, r) {
			return refuse(p, "kernel and device trees cannot be granted", "acbox gives every sandbox its own "+r)
		}
	}
	if within(h.Home, p) {
		return refuse(p, "it is your home directory or a parent of it", "grant the project directory inside your home instead")
	}
	if err := checkProtected(p, h); err != nil {
		return err
	}
	if write {
		for _, s := range systemTrees {
			if within(p, s) || within(s, p) {
				return refuse(p, "system directories are read-only in every sandbox", "grant it with --read, or grant a directory of your own")
			}
		}
	}
	return nil
}

func checkProtected(p string, h Host) error {
	// The config directory holds the profiles: no member may write one to
	// widen a later launch. Every place of acbox's state and config, not
	// only this launch's (host_places.go).
	prot := append(h.acboxDirs(), h.Protect...)
	for _, q := range prot {
		if q == "" || !filepath.IsAbs(q) {
			continue
		}
		q = canonicalOrClean(q)
		if within(p, q) || within(q, p) {
			return refuse(p, "it is, contains or lies inside the private path "+q, "grant a directory that does not include it")
		}
	}
	return nil
}

// canonicalOrClean is p with every symlink resolved; for a path that does
// not exist (yet), its longest existing parent is resolved and the rest
// joined to it: a private path named through a symlinked directory
// (~/link/later) must still match the canonical grant that will hold it.
func canonicalOrClean(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir := filepath.Dir(p); dir != p {
		return filepath.Join(canonicalOrClean(dir), filepath.Base(p))
	}
	return p
}
