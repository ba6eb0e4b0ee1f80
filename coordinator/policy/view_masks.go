package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Mask hides one host path inside the sandbox for the whole run, whether
// it exists at launch or not; Held says how (see view_hold.go): usually the
// name is left out of a snapshot of its directory (Plan.Views). Path is the
// real path on the host (symlinks resolved in the directories above it):
// what a member could reach. Via is the path as listed when its last
// component is a symlink to Path (both are hidden). Kind is "dir", "file",
// "link", "absent" (nothing there at launch) or "glob" (Path's last
// component is a pattern; each match is listed too). Dev and Ino identify
// what was checked; a mount on the entry (HeldMount) is refused when the
// path holds something else by the time it is mounted.
type Mask struct {
	Path string `json:"path"`
	Via  string `json:"via,omitempty"`
	Kind string `json:"kind"`
	Why  string `json:"why"`
	Held string `json:"held"` // HeldView, HeldPermissions or HeldMount
	Dev  uint64 `json:"dev,omitempty"`
	Ino  uint64 `json:"ino,omitempty"`
}

// credentialMasks are hidden on every run, in both views ("~" is the home
// directory; "*" globs at launch). In the grants view only those inside a
// grant or a system directory are visible at all, so only those are
// mounted.
var credentialMasks = []string{
	"~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube",
	"~/.docker", "~/.netrc", "~/.git-credentials", "~/.config/git/credentials", "~/.config/gh", "~/.npmrc",
	"~/.config/containers/auth.json", "~/.claude/.credentials.json", "~/.vault-token",
	"~/.terraform.d/credentials.tfrc.json",
	"~/.pypirc", "~/.cargo/credentials*", "~/.password-store",
	"~/.local/share/keyrings", "~/.mozilla", "~/.config/google-chrome",
	"~/.config/chromium", "/etc/ssh/ssh_host_*",
	"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
}

// hostViewMasks are hidden in the host view only. /run holds the host's
// service sockets (docker, containerd, D-Bus, systemd) and the user's
// runtime directory; a read-only mount does not stop connect() on a Unix
// socket, and Landlock only does from ABI 9, so the directory goes. /sys is
// hidden as in the grants view: the sandbox has no kernel tree of the host.
var hostViewMasks = []string{"/run", "/var/run", "/run/user/$UID", "/sys"}

// CredentialMasks returns the built-in mask list as written, for the policy
// fingerprint and documentation: credentials first, then the host view's.
func CredentialMasks() []string {
	out := append([]string{}, credentialMasks...)
	for _, m := range hostViewMasks {
		out = append(out, m+" (host view)")
	}
	out = append(out, rootOnlyRule()...)
	out = append(out, "$STATE (acbox state: every place it can be, XDG and fallback, and the places file)", "$CONFIG (acbox config, every place: profiles and the private paths)", "config private paths")
	return append(out, "held: "+HeldView+" (snapshot chain from the first level below / in the host view, else the read grant or system directory; non-root: from the topmost directory the caller owns or may write), "+
		HeldPermissions+" (non-root, unreadable, nothing above is the caller's), "+HeldMount+" (write grants, --best-effort only)")
}

// maskWant is one candidate before it is checked on the host.
type maskWant struct {
	path     string
	why      string
	required bool // an --exclude: it must exist
	glob     bool // a built-in template whose last component is a pattern; user paths are literal
	// noSource: no grant or runtime mount may show it (acbox's state and
	// config, the protect list: checkProtected and checkMountPrivate refuse
	// a source that is or contains one; a mount from inside one is cloned
	// before the masks and shows what it names). In the host view, one
	// under the sandbox's own /tmp, /dev or /proc is then not shown at all
	// and needs no snapshot: without this, /tmp/acbox-UID made every root
	// launch rebuild the whole shared /tmp, entry by entry.
	noSource bool
	// judged: a path a nested request named, as judged for the
	// requester; it is hidden where the judgment found it (resolveJudged).
	judged *judged
}

// resolveMasks finds every mask for this launch on the host (the built-in
// list, acbox's state and config, the protected paths and the excludes),
// decides how each is held, and records the directory snapshots that hold
// them in p.Views.
func resolveMasks(p *Plan, excludes []string, h Host) ([]Mask, error) {
	wants, err := maskWants(p.View, excludes, h)
	if err != nil {
		return nil, err
	}
	x := &holder{p: p, h: h, views: map[string]*ViewDir{}}
	var out []Mask
	for _, w := range wants {
		ms, err := x.resolve(w)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if err := checkGrantsUnmasked(p.Grants, m); err != nil {
				return nil, err
			}
			if m.Held != "" { // "": the sandbox does not show it at all
				out = append(out, m)
			}
		}
	}
	out = pruneMasks(out)
	p.Views = x.list(out)
	markRootOnly(p, h) // view_private.go
	return out, nil
}

// checkGrantsUnmasked refuses a grant that is or lies inside a mask, in
// either view: the mask would win, and the grant would be a lie.
func checkGrantsUnmasked(grants []Grant, m Mask) error {
	for _, g := range grants {
		if within(g.Path, m.Path) {
			return refuse(g.Path, "it is inside "+Quote(m.Path)+", which is masked in every sandbox ("+m.Why+")",
				"pass a file you need with --mount SRC:DST:ro")
		}
	}
	return nil
}

func maskWants(view string, excludes []string, h Host) ([]maskWant, error) {
	var out []maskWant
	list := credentialMasks
	if view == ViewHost {
		list = append(append([]string{}, hostViewMasks...), list...)
	}
	for _, t := range list {
		out = append(out, expandMask(t, h)...)
	}
	out = append(out, rootOnlyWants(h)...)
	// The whole config directory: config.json names the private paths.
	for _, p := range h.acboxDirs() {
		out = append(out, maskWant{path: p, why: "acbox state and config", noSource: true})
	}
	for _, p := range h.Protect {
		if filepath.IsAbs(p) {
			w, err := privateWant(p, h)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		}
	}
	for _, e := range excludes {
		w, err := excludeWant(e, view, h)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// expandMask turns one template into paths: ~ and $UID, then the glob.
func expandMask(t string, h Host) []maskWant {
	why := "credentials"
	if !strings.HasPrefix(t, "~") && !strings.HasPrefix(t, "/etc/") {
		why = "host runtime state, sockets and kernel tree"
	}
	p := strings.ReplaceAll(expandHome(t, h.Home), "$UID", strconv.Itoa(h.UID))
	return []maskWant{{path: p, why: why, glob: isGlob(filepath.Base(t))}}
}

func excludeWant(e, view string, h Host) (maskWant, error) {
	if e == "" {
		return maskWant{}, refuse(`""`, "an empty --exclude names no path", "leave it out, or name the path to hide")
	}
	p := expandHome(e, h.Home)
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.Cwd, p)
	}
	p = filepath.Clean(p)
	switch {
	case p == "/":
		return maskWant{}, refuse(e, "--exclude / would hide everything", "use --view grants and grant what the command needs")
	case view != ViewHost && filepath.Dir(p) == "/" && slices.Contains(systemCandidates, p):
		return maskWant{}, refuse(e, "it is a whole system directory, which the grants view shows whole or not at all",
			"exclude the paths inside it that must stay hidden (--exclude "+p+"/NAME), or use --view host")
	case within(p, "/proc") || within(p, "/dev"):
		return maskWant{}, refuse(e, "the sandbox has its own /proc and /dev; nothing of the host's shows there", "drop this --exclude")
	}
	if h.Requester == nil {
		return maskWant{path: p, why: "--exclude", required: true}, nil
	}
	// Judged before anything requires that it exists: for a path the
	// requester cannot see, that would tell it.
	j, err := judgeNamed(h.Requester, p, "is a nested launch's --exclude, but")
	if err != nil {
		return maskWant{}, err
	}
	if j.info == nil {
		return maskWant{}, refuse(e, "--exclude path does not exist", "fix the path or drop the --exclude")
	}
	return maskWant{path: p, why: "--exclude", judged: &j}, nil
}

// privateWant is one private path; a nested request's own (the spec's
// "private") is judged like an --exclude, but need not exist.
func privateWant(p string, h Host) (maskWant, error) {
	w := maskWant{path: p, why: "private (the config, ACBOX_PRIVATE or the spec)", noSource: true}
	if h.Requester == nil || !slices.Contains(h.specPrivate, p) {
		return w, nil
	}
	j, err := judgeNamed(h.Requester, p, "is a nested launch's private path, but")
	if err != nil {
		return maskWant{}, err
	}
	w.judged = &j
	return w, nil
}

// resolve hides one candidate: the name as listed, each match of a glob,
// and the real target of a symlinked name. An absent name is hidden too:
// the host may create it during the run.
func (x *holder) resolve(w maskWant) ([]Mask, error) {
	if w.judged != nil {
		return x.resolveJudged(w)
	}
	// Only an --exclude must exist; a built-in mask's name is hidden whether
	// or not it exists, so it is not resolved first (that cost a stat per
	// component of every mask, every launch).
	if w.required {
		if _, err := filepath.EvalSymlinks(w.path); err != nil {
			return nil, refuse(w.path, "--exclude path does not exist or cannot be resolved: "+err.Error(), "fix the path or drop the --exclude")
		}
	}
	dir, name, glob, held, err := x.place(w)
	if err != nil || dir == "" {
		return nil, err
	}
	listed := filepath.Join(dir, name)
	var out []Mask
	targets := []string{listed}
	if glob {
		targets = globIn(dir, name)
		out = append(out, Mask{Path: listed, Kind: "glob", Why: w.why, Held: held})
	}
	for _, t := range targets {
		m := statMask(t, w.why, held)
		out = append(out, m)
		if m.Kind != "link" {
			continue
		}
		rm, err := x.resolveLink(t, w.why, w.noSource)
		if err != nil {
			return nil, err
		}
		out = append(out, rm...)
	}
	return out, nil
}

// place finds the directory and name w is hidden as (locate) and hides
// it; dir is "" when nothing on the way is a directory. A directory that
// vanishes or is replaced while its chain is recorded sends it back to
// locate (maxRelocate times), which then finds what the host has now.
func (x *holder) place(w maskWant) (dir, name string, glob bool, held string, err error) {
	for try := 0; ; try++ {
		if try > 0 {
			clear(x.dirs) // the host changed: look again
		}
		d, n, last, ok := locateWith(w.path, x.resolveDir)
		if !ok {
			return "", "", false, "", nil
		}
		glob = last && w.glob
		held, err = x.hide(d, n, glob, w.noSource)
		var ce *chainError
		if errors.As(err, &ce) {
			if try < maxRelocate {
				continue
			}
			err = ce.refusal()
		}
		return d, n, glob, held, err
	}
}

const maxRelocate = 5

// resolveLink hides the real target of a symlinked credential path.
func (x *holder) resolveLink(link, why string, noSource bool) ([]Mask, error) {
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return nil, nil // dangling: the name itself is hidden
	}
	held, err := x.hide(filepath.Dir(real), filepath.Base(real), false, noSource)
	var ce *chainError
	if errors.As(err, &ce) {
		return nil, ce.refusal()
	}
	if err != nil {
		return nil, err
	}
	m := statMask(real, why, held)
	m.Via = link
	return []Mask{m}, nil
}

// statMask records what is at path now.
func statMask(path, why, held string) Mask {
	m := Mask{Path: path, Kind: "absent", Why: why, Held: held}
	fi, err := os.Lstat(path)
	if err != nil {
		return m
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		m.Kind = "link"
	case fi.IsDir():
		m.Kind = "dir"
	default:
		m.Kind = "file"
	}
	m.Dev, m.Ino = fileIdent(fi)
	return m
}

// locate returns the real directory that holds the name path would have
// and that name: the parent with its symlinks resolved, or, when the
// parent is absent, the deepest existing ancestor and the first missing
// component (hiding it keeps the whole path from appearing); last says
// the name is path's own last component. ok is false when that ancestor
// is not a directory.
func locate(path string) (dir, name string, last, ok bool) {
	return locateWith(path, resolveDir)
}

// realDir is what locate finds for one directory: its path with symlinks
// resolved (found false when that fails) and whether it is a directory.
type realDir struct {
	real         string
	found, isDir bool
}

func resolveDir(dir string) realDir {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return realDir{}
	}
	fi, err := os.Stat(real)
	return realDir{real: real, found: true, isDir: err == nil && fi.IsDir()}
}

func locateWith(path string, resolve func(string) realDir) (dir, name string, last, ok bool) {
	dir, name, last = filepath.Dir(path), filepath.Base(path), true
	for {
		if r := resolve(dir); r.found {
			return r.real, name, last, r.isDir
		}
		if dir == "/" {
			return "", "", false, false
		}
		dir, name, last = filepath.Dir(dir), filepath.Base(dir), false
	}
}

// resolveDir is resolveDir once per directory and plan: the built-in masks
// share a few parents (the home directory, ~/.config, /etc), and resolving
// each again cost a stat per component and mask, every launch. place
// forgets what it found before it locates a mask again.
func (x *holder) resolveDir(dir string) realDir {
	if r, ok := x.dirs[dir]; ok {
		return r
	}
	if x.dirs == nil {
		x.dirs = map[string]realDir{}
	}
	r := resolveDir(dir)
	x.dirs[dir] = r
	return r
}

// visibleInGrants: in the grants view a path shows only inside a grant or a
// system directory.
func visibleInGrants(path string, p *Plan) bool {
	for _, g := range p.Grants {
		if within(path, g.Path) {
			return true
		}
	}
	for _, s := range p.System {
		if s.Link == "" && within(path, s.Path) {
			return true
		}
	}
	return false
}

// pruneMasks drops duplicates and masks inside another mask (hidden
// already), and orders parents first.
func pruneMasks(ms []Mask) []Mask {
	sortParentsFirst(ms, func(i int) string { return ms[i].Path })
	var out []Mask
	for _, m := range ms {
		if _, covered := maskOver(out, m.Path); !covered {
			out = append(out, m)
		}
	}
	return out
}

// globIn lists the entries of the real directory dir whose names match
// pattern. Only the name is a pattern: dir is literal, whatever it holds
// ("[" in a home directory's name is not a character class).
func globIn(dir, pattern string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		if ok, _ := filepath.Match(pattern, de.Name()); ok { // a constant pattern: no ErrBadPattern
			out = append(out, filepath.Join(dir, de.Name()))
		}
	}
	return out
}
