package nsjail

import (
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/egress"
)

// The plan on the wire, every exported field in declaration order, those
// tagged json:"-" included (Mount.Internal, Wait): pid 1 reads neither, but
// it holds the plan the parent resolved, not a part of it. The unexported
// fields (the repository search's listings, a nested launch's requester)
// stay with the parent, which alone reads them. TestWireRoundTrip fails
// for a field added to any of these types and not here.

func encPlan(e *wenc, p *policy.Plan) {
	e.str(p.Backend)
	encStrs(e, p.Command)
	e.str(p.Cwd)
	e.int(p.UID)
	e.int(p.GID)
	e.str(p.User)
	e.str(p.Home)
	e.str(p.Hostname)
	encList(e, p.System, func(e *wenc, s *policy.SystemPath) { e.str(s.Path); e.str(s.Link) })
	encList(e, p.Grants, func(e *wenc, g *policy.Grant) { e.str(g.Path); e.bool(g.Write); e.u64(g.Dev); e.u64(g.Ino) })
	encList(e, p.Mounts, encMount)
	encList(e, p.Tmpfs, func(e *wenc, t *policy.Tmpfs) { e.str(t.Target); e.i64(t.Size) })
	encStrs(e, p.Env)
	encNetwork(e, &p.Network)
	e.bool(p.TTY)
	e.i64(p.Limits.Memory)
	e.int(p.Limits.Pids)
	e.bool(p.BestEffort)
	e.str(p.Image)
	encMap(e, p.Labels, (*wenc).str)
	e.i64(int64(p.Wait))
	e.bool(p.Delegate)
	e.int(p.Depth)
	e.str(p.Parent)
	e.bool(p.Within)
	e.str(p.View)
	encList(e, p.Masks, encMask)
	encList(e, p.Views, encViewDir)
	encList(e, p.Protected, encCarveout)
	encList(e, p.EnclosingRepos, encRepo)
	encList(e, p.BareRepos, encRepo)
	encStrs(e, p.ProtectMissing)
	encPtr(e, p.PersistedHome, func(e *wenc, h *policy.PersistedHome) { e.str(h.Name); e.str(h.Path) })
	encStrs(e, p.AccessEnv)
}

func decPlan(d *wdec, p *policy.Plan) {
	p.Backend = d.str("backend")
	p.Command = decStrs(d, "command")
	p.Cwd = d.str("cwd")
	p.UID = d.int("uid")
	p.GID = d.int("gid")
	p.User = d.str("user")
	p.Home = d.str("home")
	p.Hostname = d.str("hostname")
	p.System = decList(d, "system", 8, func(d *wdec, s *policy.SystemPath) { s.Path = d.str("path"); s.Link = d.str("link") })
	p.Grants = decList(d, "grants", 21, func(d *wdec, g *policy.Grant) {
		g.Path, g.Write, g.Dev, g.Ino = d.str("path"), d.bool("write"), d.u64("dev"), d.u64("ino")
	})
	p.Mounts = decList(d, "mounts", 14, decMount)
	p.Tmpfs = decList(d, "tmpfs", 12, func(d *wdec, t *policy.Tmpfs) { t.Target = d.str("target"); t.Size = d.i64("size") })
	p.Env = decStrs(d, "env")
	d.push("network")
	decNetwork(d, &p.Network)
	d.pop()
	p.TTY = d.bool("tty")
	p.Limits.Memory = d.i64("limits.memory")
	p.Limits.Pids = d.int("limits.pids")
	p.BestEffort = d.bool("best_effort")
	p.Image = d.str("image")
	p.Labels = decMap(d, "labels", 4, func(d *wdec) string { return d.str("") })
	p.Wait = time.Duration(d.i64("wait"))
	p.Delegate = d.bool("delegate")
	p.Depth = d.int("depth")
	p.Parent = d.str("parent")
	p.Within = d.bool("within")
	p.View = d.str("view")
	p.Masks = decList(d, "masks", 36, decMask)
	p.Views = decList(d, "views", 33, decViewDir)
	p.Protected = decList(d, "protected", 36, decCarveout)
	p.EnclosingRepos = decList(d, "enclosing_repos", 9, decRepo)
	p.BareRepos = decList(d, "bare_repos", 9, decRepo)
	p.ProtectMissing = decStrs(d, "protect_missing")
	p.PersistedHome = decPtr(d, "persisted_home", func(d *wdec, h *policy.PersistedHome) { h.Name = d.str("name"); h.Path = d.str("path") })
	p.AccessEnv = decStrs(d, "access_env")
}

func encMount(e *wenc, m *policy.Mount) {
	e.str(m.Source)
	e.str(m.Target)
	e.bool(m.Readonly)
	e.str(m.Kind)
	e.bool(m.Internal)
}

func decMount(d *wdec, m *policy.Mount) {
	m.Source = d.str("source")
	m.Target = d.str("target")
	m.Readonly = d.bool("readonly")
	m.Kind = d.str("kind")
	m.Internal = d.bool("internal")
}

func encNetwork(e *wenc, n *egress.Policy) {
	e.str(string(n.Mode))
	encList(e, n.Allow, func(e *wenc, r *egress.Rule) { e.str(r.Host); e.bool(r.Wildcard); e.int(r.Port) })
	e.bool(n.AllowAny)
	encList(e, n.ConnectPorts, func(e *wenc, p *uint16) { e.u16(*p) })
	encList(e, n.BindPorts, func(e *wenc, p *uint16) { e.u16(*p) })
}

func decNetwork(d *wdec, n *egress.Policy) {
	n.Mode = egress.Mode(d.str("mode"))
	n.Allow = decList(d, "allow", 13, func(d *wdec, r *egress.Rule) {
		r.Host, r.Wildcard, r.Port = d.str("host"), d.bool("wildcard"), d.int("port")
	})
	n.AllowAny = d.bool("allow_any")
	n.ConnectPorts = decList(d, "connect_ports", 2, func(d *wdec, p *uint16) { *p = d.u16("") })
	n.BindPorts = decList(d, "bind_ports", 2, func(d *wdec, p *uint16) { *p = d.u16("") })
}

func encMask(e *wenc, m *policy.Mask) {
	e.str(m.Path)
	e.str(m.Via)
	e.str(m.Kind)
	e.str(m.Why)
	e.str(m.Held)
	e.u64(m.Dev)
	e.u64(m.Ino)
}

func decMask(d *wdec, m *policy.Mask) {
	m.Path = d.str("path")
	m.Via = d.str("via")
	m.Kind = d.str("kind")
	m.Why = d.str("why")
	m.Held = d.str("held")
	m.Dev = d.u64("dev")
	m.Ino = d.u64("ino")
}

func encViewDir(e *wenc, v *policy.ViewDir) {
	e.str(v.Path)
	e.u64(v.Dev)
	e.u64(v.Ino)
	encStrs(e, v.Hide)
	encStrs(e, v.HideGlob)
	e.bool(v.HideRoot)
	encStrs(e, v.KeepRoot)
}

func decViewDir(d *wdec, v *policy.ViewDir) {
	v.Path = d.str("path")
	v.Dev = d.u64("dev")
	v.Ino = d.u64("ino")
	v.Hide = decStrs(d, "hide")
	v.HideGlob = decStrs(d, "hide_glob")
	v.HideRoot = d.bool("hide_root_only")
	v.KeepRoot = decStrs(d, "keep_root_only")
}

func encCarveout(e *wenc, c *policy.Carveout) {
	e.str(c.Path)
	e.str(c.Grant)
	e.str(c.Mode)
	e.str(c.Kind)
	e.str(c.Why)
	e.u64(c.Dev)
	e.u64(c.Ino)
}

func decCarveout(d *wdec, c *policy.Carveout) {
	c.Path = d.str("path")
	c.Grant = d.str("grant")
	c.Mode = d.str("mode")
	c.Kind = d.str("kind")
	c.Why = d.str("why")
	c.Dev = d.u64("dev")
	c.Ino = d.u64("ino")
}

func encRepo(e *wenc, r *policy.ProtectedRepo) { e.str(r.Root); e.str(r.Grant); e.bool(r.OwnGitDir) }

func decRepo(d *wdec, r *policy.ProtectedRepo) {
	r.Root, r.Grant, r.OwnGitDir = d.str("root"), d.str("grant"), d.bool("own_git_dir")
}
