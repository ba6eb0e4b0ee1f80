package coordinator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mask hides one host path inside the sandbox: a directory under a
// read-only empty tmpfs (mode 0000), anything else under /dev/null bound
// read-only. Path is the real path on the host (symlinks resolved): what a
// member could reach. Via is the path as listed when it went through a
// symlink. Dev and Ino identify what was checked; the backend refuses to
// start when the path holds something else by the time it is masked.
type Mask struct {
	Path string `json:"path"`
	Via  string `json:"via,omitempty"`
	Kind string `json:"kind"` // "dir" or "file"
	Why  string `json:"why"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

// credentialMasks are hidden on every run, in both views ("~" is the home
// directory; "*" globs at launch). In the grants view only those inside a
// grant or a system directory are visible at all, so only those are
// mounted.
var credentialMasks = []string{
	"~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube",
	"~/.docker", "~/.netrc", "~/.git-credentials", "~/.config/gh", "~/.npmrc",
	"~/.pypirc", "~/.cargo/credentials*", "~/.password-store",
	"~/.local/share/keyrings", "~/.mozilla", "~/.config/google-chrome",
	"~/.config/chromium", "/etc/ssh/ssh_host_*",
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
	return append(out, "$STATE (acbox state)", "$CONFIG/profiles (acbox profiles)", "config protect list")
}

// maskWant is one candidate before it is checked on the host.
type maskWant struct {
	path     string
	why      string
	required bool // an --exclude: it must exist
}

// resolveMasks finds every mask for this launch on the host: the built-in
// list, acbox's state and profiles, the protected paths and the excludes.
func resolveMasks(p *Plan, excludes []string, h Host) ([]Mask, error) {
	wants, err := maskWants(p.View, excludes, h)
	if err != nil {
		return nil, err
	}
	var out []Mask
	for _, w := range wants {
		m, ok, err := checkMask(w)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := checkGrantsUnmasked(p.Grants, m); err != nil {
			return nil, err
		}
		if p.View == ViewHost || visibleInGrants(m.Path, p) {
			out = append(out, m)
		}
	}
	return pruneMasks(out), nil
}

// checkGrantsUnmasked refuses a grant that is or lies inside a mask, in
// either view: the mask would win, and the grant would be a lie.
func checkGrantsUnmasked(grants []Grant, m Mask) error {
	for _, g := range grants {
		if within(g.Path, m.Path) {
			return refuse(g.Path, "it is inside "+m.Path+", which is masked in every sandbox ("+m.Why+")",
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
	for _, p := range []string{h.StateDir, filepath.Join(h.ConfigDir, "profiles")} {
		if filepath.IsAbs(p) {
			out = append(out, maskWant{path: p, why: "acbox state and profiles"})
		}
	}
	for _, p := range h.Protect {
		if filepath.IsAbs(p) {
			out = append(out, maskWant{path: p, why: "protected in the config"})
		}
	}
	for _, e := range excludes {
		w, err := excludeWant(e, h)
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
	if !strings.Contains(p, "*") {
		return []maskWant{{path: p, why: why}}
	}
	matches, _ := filepath.Glob(p) // the patterns are constants: no ErrBadPattern
	out := make([]maskWant, 0, len(matches))
	for _, m := range matches {
		out = append(out, maskWant{path: m, why: why})
	}
	return out
}

func excludeWant(e string, h Host) (maskWant, error) {
	p := expandHome(e, h.Home)
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.Cwd, p)
	}
	p = filepath.Clean(p)
	switch {
	case p == "/":
		return maskWant{}, refuse(e, "--exclude / would hide everything", "use --view grants and grant what the command needs")
	case within(p, "/proc") || within(p, "/dev"):
		return maskWant{}, refuse(e, "the sandbox has its own /proc and /dev; nothing of the host's shows there", "drop this --exclude")
	}
	return maskWant{path: p, why: "--exclude", required: true}, nil
}

// checkMask resolves a candidate to its real path and records what is
// there. An absent built-in path is skipped: there is nothing to hide.
func checkMask(w maskWant) (Mask, bool, error) {
	real, err := filepath.EvalSymlinks(w.path)
	if err != nil {
		if w.required {
			return Mask{}, false, refuse(w.path, "--exclude path does not exist or cannot be resolved: "+err.Error(), "fix the path or drop the --exclude")
		}
		return Mask{}, false, nil
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return Mask{}, false, nil
	}
	m := Mask{Path: real, Kind: "file", Why: w.why}
	if fi.IsDir() {
		m.Kind = "dir"
	}
	if real != w.path {
		m.Via = w.path
	}
	m.Dev, m.Ino = fileIdent(fi)
	return m, true, nil
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
