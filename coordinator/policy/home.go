package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// PersistedHome is a home directory that outlives the run (--home NAME):
// a directory in acbox's state, HomesDir/NAME, mounted read-write at the
// member's home instead of the private tmpfs. Resolve also lists it in
// Plan.Mounts (target Plan.Home), so both backends hold and check it as
// they do every runtime mount; the launcher creates, checks and locks it
// (coordinator/homes) and the checks after the run walk it as they walk
// write grants (Plan.ScanRoots).
type PersistedHome struct {
	Name string `json:"name"`
	Path string `json:"path"` // canonical as far as it exists
}

// MaxHomeName bounds a home's name.
const MaxHomeName = 64

// CheckHomeName is the one rule for a persisted home's name, from --home
// or the spec's "home": 1 to 64 of [A-Za-z0-9._-], starting with a letter
// or digit. So a name is one path component that is never ".", "..", a
// hidden file (acbox keeps its own records beside the homes under
// dot-names) or anything a shell or a listing would read differently.
func CheckHomeName(name string) error {
	if name == "" || len(name) > MaxHomeName {
		return invalid("home name %q: want 1 to %d characters", name, MaxHomeName)
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return invalid("home name %q: want letters, digits, '.', '_' and '-', starting with a letter or digit (a name, not a path)", name)
		}
	}
	return nil
}

// HomesDir is where persisted homes live: ~/.local/state/acbox/homes,
// whatever XDG_RUNTIME_DIR says. The runtime directory is a tmpfs that
// logout and reboot empty and that is charged to memory, which is the
// opposite of what a home that persists is for; ~/.local/state/acbox is
// masked and refused as a grant in every launch all the same (host.go).
func HomesDir(h Host) string {
	return filepath.Join(canonicalPrefix(fallbackStateDir(h.Home)), "homes")
}

// canonicalPrefix resolves the symlinks of the longest existing prefix of
// p and appends the rest: the path the home will have once created, which
// the backends require to be canonical (pin.Hold).
func canonicalPrefix(p string) string {
	rest := ""
	for cur := filepath.Clean(p); ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) || cur == filepath.Dir(cur) {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// resolveHome replaces the private home tmpfs with the persisted home the
// spec names, if any. It is refused in nested launches (the requester
// cannot reach acbox's state, so the child would be wider), in the host
// view (whose home is the real one, read-only, with its masks), and with a
// tmpfs on the home (two answers to one question).
func resolveHome(s Spec, p *Plan, h Host) error {
	if s.Home == "" {
		return nil
	}
	if err := CheckHomeName(s.Home); err != nil {
		return err
	}
	switch {
	case s.Depth > 0:
		return refuse("home", "a nested launch may not use a persisted home: its requester cannot reach acbox's state", "drop --home; the child gets a private home")
	case p.View == ViewHost:
		return refuse("home", "--home replaces the private home of the grants view; the host view shows your real home read-only", "use --view grants, or drop --home")
	case h.Home == "/":
		return refuse("home", "you have no home directory to mount it on", "set HOME, or drop --home")
	}
	for _, t := range s.Tmpfs {
		if filepath.Clean(t.Target) == h.Home {
			return refuse("home", "--tmpfs "+t.Target+" and --home both set the home", "drop one of them")
		}
	}
	path := filepath.Join(HomesDir(h), s.Home)
	p.PersistedHome = &PersistedHome{Name: s.Home, Path: path}
	p.Tmpfs = dropTmpfs(p.Tmpfs, h.Home)
	p.Mounts = append(p.Mounts, Mount{Source: path, Target: h.Home, Kind: "dir", Internal: true})
	sortParentsFirst(p.Mounts, func(i int) string { return p.Mounts[i].Target })
	return nil
}

// ScanRoots are the directories the checks after the run walk: the write
// grants and every read-write directory mount (the persisted home is one),
// which outlive the run alike, each once.
func (p *Plan) ScanRoots() []string {
	out := p.WriteGrants()
	if p.PersistedHome != nil {
		out = append(out, p.PersistedHome.Path)
	}
	return appendRW(out, p.Mounts, "dir")
}

// ScanFiles are the read-write regular-file mounts, which the checks after
// the run look at as they look at a file in a write grant.
func (p *Plan) ScanFiles() []string {
	return appendRW(nil, p.Mounts, "file")
}

// appendRW appends the source of each read-write mount of kind in ms
// that out does not hold yet.
func appendRW(out []string, ms []Mount, kind string) []string {
	seen := map[string]bool{}
	for _, s := range out {
		seen[s] = true
	}
	for _, m := range ms {
		if !m.Readonly && m.Kind == kind && !seen[m.Source] {
			seen[m.Source] = true
			out = append(out, m.Source)
		}
	}
	return out
}
