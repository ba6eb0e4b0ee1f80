package policy

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
	if requester == nil || requester.Sees(path) {
		return nil
	}
	return refuse(path, what+" the requesting sandbox cannot see it, and acbox reads nothing for a member that the member could not read itself",
		"name a path inside the requesting sandbox's grants")
}
