package policy

import (
	"path/filepath"
)

// A runtime mount is trusted (the caller names it), but the built-in
// credential masks hold in every view, also as root: `--mount
// /etc/shadow:/tmp/s` or `--mount ~/.ssh:/x` would show exactly what the
// masks promise to hide, so a mount whose source is, contains or lies
// inside a built-in credential path (as listed, or the real target of a
// symlinked one) is refused, as the broker refuses a nested mount of
// anything its requester masks. What the caller masks itself (--exclude,
// protect) is another matter: --exclude is this command line's own
// choice, and mounting a file named explicitly inside it is what a
// caller who means it does; the protect list is refused for mounts by
// checkProtected already. A caller who needs one credential file inside
// (a known_hosts, a deploy key) copies it out of the credential path and
// mounts the copy, which names exactly what is shown.

// checkMountCredentials refuses a runtime mount that would show a built-in
// credential path. acbox's own mounts (Internal) are exempt.
func checkMountCredentials(ms []Mount, h Host) error {
	for _, m := range ms {
		if m.Internal {
			continue
		}
		for _, c := range credentialPaths(h) {
			if showsCredential(m.Source, c) {
				return refuse(m.Source, "it shows "+Quote(c.path)+", a built-in credential path masked in every sandbox",
					"mount a narrower path that leaves it out, or copy the file the command needs elsewhere and mount the copy")
			}
		}
	}
	return nil
}

// credPath is one built-in credential path: a name, or a pattern in its
// last component.
type credPath struct {
	path string
	glob bool
}

// credentialPaths lists the built-in credential masks for h as written
// (~ expanded) and, for each that is a symlink, its real target.
func credentialPaths(h Host) []credPath {
	var out []credPath
	for _, t := range credentialMasks {
		for _, w := range expandMask(t, h) {
			out = append(out, credPath{w.path, w.glob})
			if w.glob {
				continue
			}
			if real, err := filepath.EvalSymlinks(w.path); err == nil && real != w.path {
				out = append(out, credPath{real, false})
			}
		}
	}
	return out
}

// showsCredential: src equals, contains or lies inside c (for a pattern:
// src contains its directory, or lies inside an entry whose name matches).
func showsCredential(src string, c credPath) bool {
	if !c.glob {
		return within(src, c.path) || within(c.path, src)
	}
	dir, pattern := filepath.Dir(c.path), filepath.Base(c.path)
	if within(dir, src) {
		return true
	}
	if !within(src, dir) || src == dir {
		return false
	}
	ok, _ := filepath.Match(pattern, filepath.Base(nextBelow(dir, src))) // a constant pattern
	return ok
}
