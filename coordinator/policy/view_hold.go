package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// How a mask is held for the whole run (Mask.Held). A mount on the masked
// entry itself is not enough: the kernel detaches a mount whose directory
// entry is unlinked or renamed over in another mount namespace, so a host
// that replaces a file the usual way (write a temporary file, rename it
// over) or deletes and recreates a directory would make the mask fall off,
// and a name absent at launch has no entry to mount on at all.
const (
	// HeldView: the name does not exist in the sandbox. Its directory, and
	// every directory from an anchor down to it, is shown as a read-only
	// snapshot (Plan.Views) of its other entries taken at launch, so what
	// the host creates, renames or replaces there during the run never
	// surfaces inside.
	HeldView = "view"
	// HeldPermissions: the caller cannot read the name at launch (or it is
	// absent) and neither it nor any directory above it belongs to or is
	// writable by the caller: only another user (root) can change that, and
	// the member has no capability to override file permissions. Used only
	// for non-root callers, so that /etc is not rebuilt on every launch.
	HeldPermissions = "permissions"
	// HeldMount: only with --best-effort, for a name in a write grant (whose
	// directory must stay writable, so it cannot be a snapshot): a mount on
	// the entry as at launch, which lasts until the host replaces it. The
	// enforcement report lists it as a shortfall.
	HeldMount = "mount"
)

// ViewDir is a directory the sandbox shows as a read-only snapshot: a small
// tmpfs holding a bind of every entry the host directory had at launch
// (symlinks recreated as symlinks), except the hidden names. A ViewDir whose
// parent is also one sits inside the parent's snapshot, so renaming it on
// the host changes nothing inside either. Dev and Ino identify the host
// directory that was checked; the backend refuses to start when the path
// holds something else by then.
type ViewDir struct {
	Path     string   `json:"path"`
	Dev      uint64   `json:"dev"`
	Ino      uint64   `json:"ino"`
	Hide     []string `json:"hide,omitempty"`      // entry names left out
	HideGlob []string `json:"hide_glob,omitempty"` // name patterns (path.Match) left out
	// HideRoot: entries "other" may not read are left out too (RootOnly,
	// judged on the entry's mode), except the names in KeepRoot (on the way
	// to a grant or mount target). A root caller's /etc and below: see
	// view_private.go.
	HideRoot bool     `json:"hide_root_only,omitempty"`
	KeepRoot []string `json:"keep_root_only,omitempty"`
}

// holder decides how each hidden name is held and collects the views.
type holder struct {
	p     *Plan
	h     Host
	views map[string]*ViewDir
	dirs  map[string]realDir // locate's directories, see resolveDir
}

// hide makes name (a pattern when glob) in the real directory dir absent
// for the whole run, and says how. "" means the sandbox does not show it
// at all, so there is nothing to hold: outside the grants in the grants
// view; in the host view, under the sandbox's own /tmp, /dev or /proc
// when no grant may show it (noSource, see maskWant) and none does.
func (x *holder) hide(dir, name string, glob, noSource bool) (string, error) {
	full := filepath.Join(dir, name)
	if x.p.View != ViewHost && !visibleInGrants(full, x.p) {
		return "", nil
	}
	if x.p.View == ViewHost && noSource && hiddenInHostView(full, x.p) {
		return "", nil
	}
	if lockedOut(dir, name, glob, x.h) {
		return HeldPermissions, nil
	}
	if g, ok := writeGrantOver(x.p.Grants, dir); ok {
		if !x.p.BestEffort {
			return "", refuse(full, "it lies in the write grant "+g+": a mask there cannot hold for the whole run (the directory must stay writable, and the host replacing the entry makes a mount on it fall off)",
				"grant narrower write directories that leave it out, or pass --best-effort to mask it by a mount on the entry (reported as a shortfall)")
		}
		return HeldMount, nil
	}
	if err := x.chain(x.anchor(dir), dir); err != nil {
		return "", err
	}
	v := x.views[dir]
	if glob {
		v.HideGlob = appendNew(v.HideGlob, name)
	} else {
		v.Hide = appendNew(v.Hide, name)
	}
	return HeldView, nil
}

// anchor is the top of the snapshot chain for a hidden name in dir. Every
// directory from the anchor down to dir is a snapshot, so its entries,
// the next directory of the chain among them, cannot be renamed or
// replaced on the host in a way the sandbox sees; the anchor's own entry
// must be just as fixed. That holds for the root of what the sandbox
// shows: a directory directly under "/" in the host view (whose root is
// itself a snapshot), a read grant or a system directory in the grants
// view (each is a mount whose root is the directory itself). So the chain
// starts there, except that a non-root caller's chain may start lower, at
// the topmost directory it owns or may write: a directory above that is
// renamable only by another user (as HeldPermissions assumes), and
// starting lower keeps /etc from being rebuilt for a user's /etc/ssh.
func (x *holder) anchor(dir string) string {
	top := x.top(dir)
	if x.h.UID == 0 || x.readGrant(top) || top == dir {
		return top
	}
	for d := top; d != dir; d = nextBelow(d, dir) {
		if fi, err := os.Lstat(d); err != nil || fileOwner(fi) == x.h.UID || permits(fi, x.h, 2) {
			return d
		}
	}
	return dir
}

// top is the root of what shows dir: see anchor.
func (x *holder) top(dir string) string {
	if x.p.View == ViewHost {
		if dir == "/" {
			return "/"
		}
		return "/" + strings.SplitN(dir[1:], "/", 2)[0]
	}
	best := ""
	for _, g := range x.p.Grants {
		if !g.Write && within(dir, g.Path) && (best == "" || len(g.Path) < len(best)) {
			best = g.Path
		}
	}
	if best != "" {
		return best
	}
	for _, s := range x.p.System {
		if s.Link == "" && within(dir, s.Path) {
			return s.Path
		}
	}
	return dir
}

func (x *holder) readGrant(p string) bool {
	for _, g := range x.p.Grants {
		if !g.Write && g.Path == p {
			return true
		}
	}
	return false
}

// nextBelow is the child of d on the way down to dir (d is above dir).
func nextBelow(d, dir string) string {
	rest := strings.TrimPrefix(dir, strings.TrimSuffix(d, "/")+"/")
	return filepath.Join(d, strings.SplitN(rest, "/", 2)[0])
}

// chain records every directory from anchor down to dir as a view, all or
// none: errChainChanged when one is no longer a directory (the host
// removed or replaced it since locate found it).
func (x *holder) chain(anchor, dir string) error {
	var add []*ViewDir
	for d := dir; ; d = filepath.Dir(d) {
		if _, ok := x.views[d]; !ok {
			fi, err := os.Lstat(d)
			if err != nil || !fi.IsDir() {
				return &chainError{d}
			}
			v := &ViewDir{Path: d}
			v.Dev, v.Ino = fileIdent(fi)
			add = append(add, v)
		}
		if d == anchor || d == "/" {
			break
		}
	}
	for _, v := range add {
		x.views[v.Path] = v
	}
	return nil
}

// chainError: a directory of the chain changed while it was recorded.
// resolve looks the name up again a few times before refusing: on a busy
// host, directories come and go.
type chainError struct{ dir string }

func (e *chainError) Error() string { return e.dir + " changed while the masks were being resolved" }

func (e *chainError) refusal() error {
	return refuse(e.dir, "it changed while the masks were being resolved (no longer a directory)", "retry")
}

// list returns the views parents first, dropping those a hidden name of a
// view above already covers.
func (x *holder) list(masks []Mask) []ViewDir {
	var out []ViewDir
	for _, v := range x.views {
		if _, covered := maskOver(masks, v.Path); !covered {
			out = append(out, *v)
		}
	}
	sortParentsFirst(out, func(i int) string { return out[i].Path })
	return out
}

func writeGrantOver(grants []Grant, dir string) (string, bool) {
	for _, g := range grants {
		if g.Write && within(dir, g.Path) {
			return g.Path, true
		}
	}
	return "", false
}

// lockedOut: a non-root caller cannot read name in dir now and cannot make
// it readable: it is absent or unreadable, not the caller's, and no
// directory from dir up to / belongs to or is writable by the caller (else
// the caller's own tools could put a readable file there). Root reads
// everything it owns inside, and owns /etc: never locked out.
func lockedOut(dir, name string, glob bool, h Host) bool {
	if h.UID == 0 {
		return false
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil || fileOwner(fi) == h.UID || permits(fi, h, 2) {
			return false
		}
		if d == "/" {
			break
		}
	}
	paths := []string{filepath.Join(dir, name)}
	if glob {
		paths = globIn(dir, name)
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err == nil && (fileOwner(fi) == h.UID || permits(fi, h, 4) || (fi.IsDir() && permits(fi, h, 1))) {
			return false
		}
		if err != nil && !os.IsNotExist(err) {
			return false
		}
	}
	return true
}

// permits: the permission bits (4 read, 2 write, 1 search) the caller gets
// on fi as the member would: by owner, group (primary or supplementary),
// or other, with no capability to override them.
func permits(fi os.FileInfo, h Host, bit os.FileMode) bool {
	if fi.Mode()&os.ModeSymlink != 0 {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case fileOwner(fi) == h.UID:
		return perm&(bit<<6) != 0
	case slices.Contains(callerGroups(h), fileGroup(fi)):
		return perm&(bit<<3) != 0
	}
	return perm&bit != 0
}

// callerGroups: the primary group, and the process's supplementary groups
// when the host describes this process (the member keeps them: setgroups
// is denied, not emptied).
func callerGroups(h Host) []int {
	gs := []int{h.GID}
	if h.UID == os.Getuid() {
		if sup, err := os.Getgroups(); err == nil {
			gs = append(gs, sup...)
		}
	}
	return gs
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// isGlob: a built-in template's last component is a pattern. Only the
// built-in list globs; --exclude and protected paths are literal names.
func isGlob(name string) bool { return strings.ContainsAny(name, "*?[") }
