package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Carve-outs keep parts of a write grant read-only: by default the git
// hooks and config of the repository at the grant's root and of those up to
// three levels below it (protect_git.go, protect_search.go), because a member that can write them can make git run
// its code later, outside the sandbox. --protect adds paths relative to
// each write grant; --unprotect drops a built-in one.
//
// A carve-out is a read-only bind of the path onto itself. That alone is
// not enough: the member could rename a parent (mv .git .git.old), copy it
// back and write into the copy. So every directory between the grant's root
// and a carve-out is pinned: bound onto itself read-write, which leaves it
// writable but makes it a mount point, and a mount point cannot be renamed
// or removed. The grant's root is a mount point already.
//
// Resolution follows grants and masks: canonical paths only. A symlink on
// the way to a carve-out refuses the launch (protecting the link's target
// would leave the link itself replaceable). A built-in carve-out that is
// missing in a git directory that exists refuses the launch too: the member
// could create .git/hooks and plant hooks in it. Missing --protect paths
// are skipped and listed in Plan.ProtectMissing.
//
// Landlock is unchanged: its rule for a write grant covers the carve-outs,
// and Landlock cannot deny beneath an allowed parent. The mounts are the
// whole of the control.

// Carveout is one mount inside a write grant, made by the backend after the
// grants are placed. Dev and Ino identify what was checked; the backend
// refuses to start when the path holds something else by then.
type Carveout struct {
	Path  string `json:"path"`  // canonical, inside Grant
	Grant string `json:"grant"` // the innermost grant holding it (a write grant)
	Mode  string `json:"mode"`  // CarveReadOnly or CarvePin
	Kind  string `json:"kind"`  // "dir" or "file"
	Why   string `json:"why"`
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
}

// Carve-out modes.
const (
	CarveReadOnly = "ro"  // a read-only bind of the path onto itself
	CarvePin      = "pin" // a read-write bind onto itself: cannot be renamed or removed
)

// The built-in carve-outs, by the name --unprotect takes.
const (
	ProtectHooks   = ".git/hooks"  // hooks directories
	ProtectConfig  = ".git/config" // config and config.worktree files
	ProtectGitLink = ".git"        // a `gitdir:` file and `commondir` files: where git looks
	// ProtectHooksPath is the directory core.hooksPath names in a write
	// grant (protect_hookspath.go).
	ProtectHooksPath = "hookspath"
)

// BuiltinProtect lists the built-in carve-outs (for docs and --unprotect).
func BuiltinProtect() []string {
	return []string{ProtectHooks, ProtectConfig, ProtectGitLink, ProtectHooksPath}
}

// carveWant is a read-only carve-out before it is checked on the host.
type carveWant struct {
	path     string // absolute, clean
	why      string
	key      string // a built-in name, "" for --protect
	required bool   // missing refuses the launch
	pin      bool   // a pin rather than read-only; skipped unless a real directory
}

// resolveProtected finds every carve-out for the plan's write grants.
func resolveProtected(p *Plan, protect, unprotect []string) ([]Carveout, []string, error) {
	drop, err := unprotectSet(unprotect)
	if err != nil {
		return nil, nil, err
	}
	rels, err := protectRels(protect)
	if err != nil {
		return nil, nil, err
	}
	var wants []carveWant
	for _, g := range p.Grants {
		if !g.Write {
			continue
		}
		ws, err := builtinWants(g.Path, p, drop)
		if err != nil {
			return nil, nil, err
		}
		wants = append(wants, ws...)
		for _, rel := range rels {
			wants = append(wants, carveWant{path: filepath.Join(g.Path, rel), why: "--protect " + rel})
		}
	}
	var out []Carveout
	var missing []string
	for _, w := range wants {
		cs, err := checkCarve(w, p)
		if errors.Is(err, fs.ErrNotExist) && !w.required {
			if w.key == "" {
				missing = append(missing, w.path)
			}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cs...)
	}
	if !(drop[ProtectHooks] && drop[ProtectConfig] && drop[ProtectGitLink]) {
		p.EnclosingRepos = enclosingRepos(p)
	}
	out = pruneCarveouts(out)
	if err := checkNothingBeneath(out, p); err != nil {
		return nil, nil, err
	}
	return out, uncovered(missing, out), nil
}

// builtinWants: the built-in carve-outs of the repository at a write
// grant's root and of those below it (protect_search.go), bare ones
// included (protect_bare.go), less the dropped.
func builtinWants(root string, p *Plan, drop map[string]bool) ([]carveWant, error) {
	if drop[ProtectHooks] && drop[ProtectConfig] && drop[ProtectGitLink] {
		return nil, nil
	}
	repos, bares, err := searchRepos(root, p)
	if err != nil {
		return nil, err
	}
	out, err := bareWants(root, bares, p, drop)
	if err != nil {
		return nil, err
	}
	if r, ok := enclosingRepo(root); ok && !drop[ProtectHooksPath] && !drop[ProtectConfig] {
		hs, err := hooksPathWants(r.Root, p) // a relative value is taken from its work tree's root
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	repos = append([]string{root}, repos...)
	repos = append(repos, listedWorktrees(append(repos, bares...), p.Grants)...) // protect_worktrees.go
	for _, r := range repos {
		ws, err := gitWants(r, p.Grants, drop)
		if err != nil {
			return nil, err
		}
		if !drop[ProtectHooksPath] && !drop[ProtectConfig] {
			hs, err := hooksPathWants(r, p)
			if err != nil {
				return nil, err
			}
			ws = append(ws, hs...)
		}
		for _, w := range ws {
			if !drop[w.key] {
				out = append(out, w)
			}
		}
	}
	return out, nil
}

func unprotectSet(names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		n = filepath.Clean(n)
		if !containsString(BuiltinProtect(), n) {
			return nil, invalid("--unprotect %q: want one of %s", n, strings.Join(BuiltinProtect(), ", "))
		}
		out[n] = true
	}
	return out, nil
}

// protectRels checks --protect paths: relative, inside the grant, not the
// grant itself (grant it with --read instead).
func protectRels(in []string) ([]string, error) {
	var out []string
	for _, r := range in {
		c := filepath.Clean(r)
		if r == "" || filepath.IsAbs(r) || c == "." || c == ".." || strings.HasPrefix(c, "../") {
			return nil, invalid("--protect %q: want a path relative to each write grant, inside it (grant a directory with --read to make all of it read-only)", r)
		}
		out = append(out, c)
	}
	return out, nil
}

// checkCarve checks one wanted carve-out and returns it with the pins of
// its parents. A path that the sandbox does not show writable (outside
// every write grant, in a nested read grant, under a runtime mount, a tmpfs
// or a mask) needs nothing and yields nothing. A missing path is
// fs.ErrNotExist (refused by the caller when required).
func checkCarve(w carveWant, p *Plan) ([]Carveout, error) {
	home, ok := innermostGrant(p.Grants, w.path)
	if !ok || !home.Write || w.path == home.Path || shadowed(w.path, home, p) {
		return nil, nil
	}
	var out []Carveout
	rest := strings.Split(strings.TrimPrefix(w.path, home.Path+"/"), "/")
	infos, err := lstatBelow(home, rest)
	if len(infos) < len(rest) && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && !endsInLink(infos) {
		return nil, missingCarve(w)
	}
	if err != nil && !endsInLink(infos) {
		return nil, refuse(filepath.Join(home.Path, filepath.Join(rest[:min(len(infos)+1, len(rest))]...)), "cannot be inspected: "+err.Error(), "")
	}
	cur := home.Path
	for i, fi := range infos {
		cur = filepath.Join(cur, rest[i])
		last := i == len(rest)-1
		mode := fi.Mode()
		if last && w.pin && !mode.IsDir() {
			return out, nil // nothing to pin: the parents' pins stand
		}
		switch {
		case mode&os.ModeSymlink != 0:
			return nil, refuse(cur, "is a symlink on the way to "+w.why+": a member could replace the link, so it cannot be protected",
				"replace the link with the real directory or file, or drop the protection ("+dropHint(w)+")")
		case !last && !mode.IsDir():
			return nil, missingCarve(w)
		case last && !mode.IsDir() && !mode.IsRegular():
			return nil, refuse(cur, "is neither a directory nor a regular file and cannot be protected", dropHint(w))
		}
		c := Carveout{Path: cur, Grant: home.Path, Mode: CarvePin, Kind: "dir", Why: "parent of " + w.why}
		if last && w.pin {
			c.Why = w.why
		} else if last {
			c.Mode, c.Why = CarveReadOnly, w.why
			if !mode.IsDir() {
				c.Kind = "file"
			}
		}
		c.Dev, c.Ino = fileIdent(fi)
		out = append(out, c)
	}
	return out, nil
}

func missingCarve(w carveWant) error {
	if !w.required {
		return fs.ErrNotExist
	}
	if w.key == ProtectHooksPath {
		return refuse(w.path, "does not exist: it is the hooks directory core.hooksPath names, and a member with write access could create it and plant hooks that git runs outside the sandbox",
			"create it (mkdir "+w.path+"), or pass --unprotect "+ProtectHooksPath)
	}
	return refuse(w.path, "does not exist: a member with write access could create it and plant hooks or config that git runs outside the sandbox",
		"run `git init` in the repository (it recreates hooks and config and keeps everything else), or "+dropHint(w))
}

func dropHint(w carveWant) string {
	if w.key == "" {
		return "drop the --protect"
	}
	return "pass --unprotect " + w.key
}

// innermostGrant returns the deepest grant containing path.
func innermostGrant(grants []Grant, path string) (Grant, bool) {
	var best Grant
	found := false
	for _, g := range grants {
		if within(path, g.Path) && (!found || len(g.Path) > len(best.Path)) {
			best, found = g, true
		}
	}
	return best, found
}

// shadowed: under a mask, or under a runtime mount or tmpfs stacked on the
// grant home (mounted after it: deeper, or a runtime mount at the same
// path), the sandbox shows something else at path.
func shadowed(path string, home Grant, p *Plan) bool {
	if _, ok := maskOver(p.Masks, path); ok {
		return true
	}
	for _, m := range p.Mounts {
		if within(path, m.Target) && within(m.Target, home.Path) {
			return true
		}
	}
	for _, t := range p.Tmpfs {
		if within(path, t.Target) && t.Target != home.Path && within(t.Target, home.Path) {
			return true
		}
	}
	return false
}

// pruneCarveouts orders parents first, merges duplicates (read-only wins
// over a pin) and drops what lies inside a read-only carve-out already.
func pruneCarveouts(cs []Carveout) []Carveout {
	sortParentsFirst(cs, func(i int) string { return cs[i].Path })
	var out []Carveout
	idx := map[string]int{}
	for _, c := range cs {
		if i, ok := idx[c.Path]; ok {
			if c.Mode == CarveReadOnly && out[i].Mode != CarveReadOnly {
				out[i] = c
			}
			continue
		}
		if roOver(out, c.Path) {
			continue
		}
		idx[c.Path] = len(out)
		out = append(out, c)
	}
	return out
}

// uncovered drops the missing paths that a read-only carve-out covers (they
// cannot be created) and duplicates.
func uncovered(missing []string, cs []Carveout) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range missing {
		if !seen[m] && !roOver(cs, m) {
			out = append(out, m)
		}
		seen[m] = true
	}
	return out
}

func roOver(cs []Carveout, path string) bool {
	for _, c := range cs {
		if c.Mode == CarveReadOnly && within(path, c.Path) {
			return true
		}
	}
	return false
}

// checkNothingBeneath refuses a grant, runtime mount or tmpfs whose target
// lies strictly inside a carve-out: the carve-out is mounted after them and
// would hide it.
func checkNothingBeneath(cs []Carveout, p *Plan) error {
	var targets []string
	for _, g := range p.Grants {
		targets = append(targets, g.Path)
	}
	for _, m := range p.Mounts {
		targets = append(targets, m.Target)
	}
	for _, t := range p.Tmpfs {
		targets = append(targets, t.Target)
	}
	for _, c := range cs {
		for _, t := range targets {
			if t != c.Path && within(t, c.Path) {
				return refuse(t, "lies inside "+Quote(c.Path)+", which is protected ("+c.Why+") and would hide it",
					"mount it elsewhere, or drop the protection with --unprotect")
			}
		}
	}
	return nil
}

// protectNarrower refuses a child that could write what its requester
// keeps read-only: every read-only carve-out of the parent that the child
// shows writable must lie in a read-only carve-out of the child.
func protectNarrower(child, parent *Plan) error {
	for _, pc := range parent.Protected {
		home, ok := innermostGrant(child.Grants, pc.Path)
		if pc.Mode != CarveReadOnly || !ok || !home.Write || shadowed(pc.Path, home, child) || roOver(child.Protected, pc.Path) {
			continue
		}
		return refuse(pc.Path, "the requester keeps it read-only ("+pc.Why+"); a nested launch may not make it writable",
			"drop the --unprotect, or --protect it relative to the nested write grant")
	}
	return nil
}
