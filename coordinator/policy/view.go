package policy

import (
	"os"
	"path/filepath"
)

// The views of the host a sandbox can have. There is no third view and no
// view without a boundary: an unknown name is an error.
const (
	// ViewGrants (the default) shows the system directories, the grants and
	// the runtime mounts; home and /tmp are private tmpfs mounts.
	ViewGrants = "grants"
	// ViewHost shows the whole host root read-only, home included, with the
	// credential masks; writes only in write grants and private tmpfs
	// mounts; /tmp, /dev and /proc are the sandbox's own.
	ViewHost = "host"
)

// ParseView checks a view name; "" is ViewGrants.
func ParseView(v string) (string, error) {
	switch v {
	case "", ViewGrants:
		return ViewGrants, nil
	case ViewHost:
		return ViewHost, nil
	}
	return "", invalid("view %q: want grants or host", v)
}

// resolveView fills in what the view decides once grants, masks, mounts and
// tmpfs are known: in the host view there are no system clones (the root is
// the host's), home is the real home (no tmpfs over it), and every tmpfs or
// mount target must already exist, because the root it lands on is
// read-only. In both views no mount target may sit inside a mask (grants:
// see checkGrantsUnmasked), and no mount source may show a built-in
// credential path (view_mounts.go).
func resolveView(p *Plan, h Host) error {
	if err := checkMountCredentials(p.Mounts, h); err != nil {
		return err
	}
	for _, m := range p.Mounts {
		if mk, ok := maskOver(p.Masks, m.Target); ok {
			return refuse(m.Target, "mount target is inside the masked path "+Quote(mk.Path), "mount it somewhere else")
		}
	}
	if p.View != ViewHost {
		return nil
	}
	if p.Backend == "docker" {
		return invalid("view host: the docker backend has no host view; use --backend native or --view grants")
	}
	p.System = nil
	p.Tmpfs = dropTmpfs(p.Tmpfs, h.Home)
	return checkHostTargets(p)
}

// maskOver returns the mask that equals or contains path.
func maskOver(masks []Mask, path string) (Mask, bool) {
	for _, m := range masks {
		if within(path, m.Path) {
			return m, true
		}
	}
	return Mask{}, false
}

func dropTmpfs(ts []Tmpfs, target string) []Tmpfs {
	out := ts[:0:0]
	for _, t := range ts {
		if t.Target != target {
			out = append(out, t)
		}
	}
	return out
}

// checkHostTargets: the host view's root is the host's own, read-only, so a
// mount point cannot be created; it must exist with the right type. Only
// DelegateDir (the broker socket and acbox binary of --delegate) is the
// sandbox's own: the backend puts a small directory of its own there.
func checkHostTargets(p *Plan) error {
	for _, t := range p.Tmpfs {
		if err := existsAs(t.Target, "dir", "tmpfs target", p.requester); err != nil {
			return err
		}
	}
	for _, m := range p.Mounts {
		if within(m.Target, DelegateDir) {
			continue // the sandbox's own directory: the backend makes it (nsjail: ownDir)
		}
		want := "dir"
		if m.Kind != "dir" {
			want = "file"
		}
		if err := existsAs(m.Target, want, "mount target", p.requester); err != nil {
			return err
		}
	}
	return nil
}

// existsAs refuses path unless it is a real directory or file (kind) on
// the host. For a nested launch it is judged for the requester first (a
// target it cannot see is refused whether or not it exists) and what the
// judgment found is checked: no symlink on it is followed (one into a
// hidden directory made the answer say whether a name existed there).
// The host's /tmp, the host view's own tmpfs target, is no secret.
func existsAs(path, kind, what string, requester *Plan) error {
	if requester != nil && path != "/tmp" {
		j, err := judgeNamed(requester, path, "is a nested launch's "+what+", but")
		if err != nil {
			return err
		}
		if j.info == nil || j.real != path || j.info.IsDir() != (kind == "dir") {
			return refuse(path, what+" must already exist on the host as a real "+kindName(kind)+" in --view host (the root is the host's, read-only)",
				"create it on the host first, or choose a target that exists")
		}
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.IsDir() != (kind == "dir") || fi.Mode()&os.ModeSymlink != 0 {
		return refuse(path, what+" must already exist on the host as a real "+kindName(kind)+" in --view host (the root is the host's, read-only)",
			"create it on the host first, or choose a target that exists")
	}
	return nil
}

func kindName(kind string) string {
	if kind == "dir" {
		return "directory"
	}
	return "file"
}

// viewCwd picks the working directory. In the grants view it must lie in a
// grant (see resolveCwd). In the host view any directory the member can see
// will do: an explicit cwd must not be masked or private; the implicit one
// (the launch directory) falls back to the home directory when it is.
func viewCwd(cwd string, p *Plan, h Host) (string, error) {
	if p.View != ViewHost {
		return resolveCwd(cwd, p.Grants, h)
	}
	explicit := cwd != ""
	if !explicit {
		cwd = h.Cwd
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(h.Cwd, cwd)
	}
	cwd, fallback, err := realCwd(cwd, explicit, h, canonicalOrClean)
	if err != nil {
		return "", err
	}
	if fallback || hiddenInHostView(cwd, p) {
		if explicit {
			return "", refuse(cwd, "--cwd is masked or private in the host view", "choose a directory the host view shows")
		}
		if hiddenInHostView(h.Home, p) {
			return "/", nil
		}
		return h.Home, nil
	}
	return cwd, nil
}

// hiddenInHostView: masked, or under a private mount the sandbox replaces.
func hiddenInHostView(p string, plan *Plan) bool {
	if _, ok := maskOver(plan.Masks, p); ok {
		return true
	}
	for _, d := range []string{"/tmp", "/dev", "/proc"} {
		if within(p, d) {
			for _, g := range plan.Grants {
				if within(p, g.Path) {
					return false
				}
			}
			return true
		}
	}
	return false
}
