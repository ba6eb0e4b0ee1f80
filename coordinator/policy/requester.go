package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A nested launch is asked for by a member, through its sandbox's broker,
// and resolved by acbox on the host, which can read what the member
// cannot. Whatever Resolve reads because the member named it is first
// judged against what the requesting sandbox sees; a path it cannot see
// is refused the same way whether or not it exists, and errors name
// paths and line numbers, never what a file holds. Otherwise the answers
// are an oracle: a git include of a private file, refused with its first
// key quoted, read the file for the member; an include or an --exclude
// accepted only when its path exists told the member what exists behind
// its masks.

// Sees reports whether the sandbox of plan p shows path to its member:
// in the host view anything not masked or under its private /tmp, /dev
// or /proc; in the grants view a grant or system directory, less the
// masks. Lexical: a symlink is judged where it is named.
func (p *Plan) Sees(path string) bool {
	if p.View == ViewHost {
		return !hiddenInHostView(path, p)
	}
	if _, ok := maskOver(p.Masks, path); ok {
		return false
	}
	return shows(p, path)
}

// mayWrite: path lies in one of p's write grants (carve-outs aside: what
// the member may have written there before one was made counts as its).
func (p *Plan) mayWrite(path string) bool {
	for _, g := range p.Grants {
		if g.Write && within(path, g.Path) {
			return true
		}
	}
	return false
}

// unseen refuses path, named on behalf of the requesting sandbox, when
// that sandbox cannot see it; what names it is said by what.
func unseen(requester *Plan, path, what string) error {
	if requester == nil || seenThroughLinks(requester, path) {
		return nil
	}
	return refuse(path, what+" the requesting sandbox cannot see it, and acbox reads nothing for a member that the member could not read itself",
		"name a path inside the requesting sandbox's grants")
}

// maxLinkHops bounds the symlinks seenThroughLinks follows (the kernel's
// own limit is 40).
const maxLinkHops = 40

// seenThroughLinks reports whether the requester sees path as the host
// will resolve it: the path as spelled must be seen, and after each
// symlink on it is replaced by its target, so must the new spelling. It
// looks at a component only while the path as then spelled is one the
// requester sees, so the answer is the same whether what lies behind a
// link into a hidden place exists (a link in a write grant to a masked
// directory, followed by a name, once told the member what the mask held).
func seenThroughLinks(p *Plan, path string) bool {
	spelled := filepath.Clean(path)
	for hops := 0; ; hops++ {
		if !p.Sees(spelled) || hops > maxLinkHops {
			return false
		}
		link, target, ok := firstLink(spelled)
		if !ok {
			return true
		}
		rest := strings.TrimPrefix(spelled, link)
		spelled = filepath.Join(target, rest)
	}
}

// firstLink finds the first component of the absolute, clean path that is
// a symlink, and returns that prefix and its target made absolute. A
// component that does not exist (or cannot be read) ends the search.
func firstLink(path string) (link, target string, ok bool) {
	prefix := "/"
	for _, name := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if name == "" {
			continue
		}
		prefix = filepath.Join(prefix, name)
		fi, err := os.Lstat(prefix)
		if err != nil {
			return "", "", false
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		t, err := os.Readlink(prefix)
		if err != nil {
			return "", "", false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(prefix), t)
		}
		return prefix, filepath.Clean(t), true
	}
	return "", "", false
}
