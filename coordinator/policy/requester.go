package policy

import (
	"io/fs"
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
// accepted only when its path existed told the member what exists behind
// its masks.
//
// A path is resolved once (judge): the result of the judgment, its real
// path and what is there, is what Resolve then uses. Judging and then
// resolving the name again let a member that flips a link in its write
// grant between a place it sees and one it cannot have the judgment look
// at the first and the use at the second.

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

// judged is a path named by a nested request as judge found it, once.
type judged struct {
	// real is the path with every symlink on it replaced by its target;
	// each spelling on the way was one the requester sees.
	real string
	// found is real when something is there, else the deepest existing
	// directory on it joined with the first missing name (where a mask
	// on real is held).
	found string
	// info is what is at real, nil when nothing is.
	info fs.FileInfo
	// dir is the device and inode of the directory found's last name is in.
	dir [2]uint64
	// notDir: a component of real is not a directory, so nothing can be
	// there.
	notDir bool
}

// maxLinkHops bounds the symlinks judge follows (the kernel's own limit
// is 40).
const maxLinkHops = 40

// afterJudging, when set (tests), runs between judging a path and using it.
var afterJudging func(real string)

// judge resolves path for the requester, once: the path as spelled must
// be seen, and after each symlink on it is replaced by its target, so
// must the new spelling. Each component is opened without following links
// from the directory opened before it (walkOnce), so what is judged is
// what is found: nothing on the way is resolved twice. It looks at a
// component only while the path as then spelled is one the requester
// sees, so the answer is the same whether what lies behind a link into a
// hidden place exists. ok is false when the requester cannot see it; err
// is a fault reading what it sees.
func judge(p *Plan, path string) (j judged, ok bool, err error) {
	spelled := filepath.Clean(path)
	for hops := 0; hops <= maxLinkHops; hops++ {
		if !p.Sees(spelled) {
			return judged{}, false, nil
		}
		step, err := walkOnce(spelled)
		if err != nil {
			return judged{}, true, err
		}
		if step.link == "" {
			if afterJudging != nil {
				afterJudging(step.j.real)
			}
			return step.j, true, nil
		}
		spelled = filepath.Join(step.target, strings.TrimPrefix(spelled, step.link))
	}
	return judged{}, false, nil
}

// walkStep is one walk down a spelling: the first symlink on it (link, and
// its target made absolute), or, with link empty, what the walk found.
type walkStep struct {
	link, target string
	j            judged
}

// judgeNamed judges path, named on behalf of the requesting sandbox: it
// refuses a path that sandbox cannot see, or one it cannot resolve; what
// names it is said by what.
func judgeNamed(requester *Plan, path, what string) (judged, error) {
	j, ok, err := judge(requester, path)
	if !ok {
		return judged{}, refuse(path, what+" the requesting sandbox cannot see it, and acbox reads nothing for a member that the member could not read itself",
			"name a path inside the requesting sandbox's grants")
	}
	if err != nil {
		return judged{}, refuse(path, what+" acbox cannot resolve it: "+err.Error(), "fix the path")
	}
	return j, nil
}

// unseen refuses path, named on behalf of the requesting sandbox, when
// that sandbox cannot see it (nil requester: not a nested launch).
func unseen(requester *Plan, path, what string) error {
	if requester == nil {
		return nil
	}
	_, err := judgeNamed(requester, path, what)
	return err
}

// changed is the one refusal for a judged path whose use found anything
// but what was judged: it says nothing of what the use found, which may
// lie where the requester cannot see.
func changed(path, what string) error {
	return refuse(path, what+" it changed while acbox resolved it (a symlink or directory on it was replaced)",
		"leave the path alone while the nested launch starts")
}
