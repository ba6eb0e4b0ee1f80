package policy

import "strings"

// provider is something mounted in the grants view under which a mount or
// tmpfs target may lie: a system directory, a grant, a runtime mount or a
// tmpfs. host is where its contents live on the host ("" for a tmpfs).
type provider struct {
	target, host string
	readonly     bool
}

// checkGrantTargets refuses, at plan time, a runtime mount or tmpfs whose
// target does not exist and lies under something read-only (a system
// directory, a read grant, a read-only runtime mount): its mount point could
// not be created there, and the launch would fail half way. On the sandbox's
// own tmpfs root, in tmpfs mounts and in write grants, mount points are
// created as needed.
func checkGrantTargets(p *Plan) error {
	var ps []provider
	for _, s := range p.System {
		if s.Link == "" {
			ps = append(ps, provider{s.Path, s.Path, true})
		}
	}
	for _, g := range p.Grants {
		ps = append(ps, provider{g.Path, g.Path, !g.Write})
	}
	for _, m := range p.Mounts {
		if m.Kind == "dir" {
			ps = append(ps, provider{m.Target, m.Source, m.Readonly})
		}
	}
	for _, t := range p.Tmpfs {
		ps = append(ps, provider{t.Target, "", false})
	}
	for _, m := range p.Mounts {
		if err := checkTarget(m.Target, m.Kind, ps, "mount target", p.requester); err != nil {
			return err
		}
	}
	for _, t := range p.Tmpfs {
		if err := checkTarget(t.Target, "dir", ps, "tmpfs target", p.requester); err != nil {
			return err
		}
	}
	return nil
}

// checkTarget: requester is the nested launch's (nil from the host): the
// host path is judged for it (existsAs).
func checkTarget(target, kind string, ps []provider, what string, requester *Plan) error {
	best := -1
	for i, pr := range ps {
		if pr.target != target && within(target, pr.target) && (best < 0 || len(pr.target) > len(ps[best].target)) {
			best = i
		}
	}
	if best < 0 || !ps[best].readonly {
		return nil
	}
	pr := ps[best]
	hostPath := pr.host + strings.TrimPrefix(target, pr.target)
	want := "dir"
	if kind != "dir" {
		want = "file"
	}
	if err := existsAs(hostPath, want, what, requester); err != nil {
		return refuse(target, what+" does not exist inside the read-only "+pr.target+", so no mount point can be made for it",
			"choose a target outside the system directories and read grants (for example under your home), or create it on the host first")
	}
	return nil
}
