package policy

import (
	"fmt"
	"slices"

	"github.com/acbox/acbox/egress"
)

// MaxDelegationDepth is how deep nested launches may go by default: a
// sandbox launched from a sandbox launched from the host is depth 2.
const MaxDelegationDepth = 2

// Narrower refuses a child plan that reaches anything its requester
// cannot: a write grant not inside the requester's write grants, a read
// grant not inside its read or write grants, a runtime mount (nested
// launches may not add trusted mounts beyond the requester's own), a
// network policy that allows what the requester's does not, a view wider
// than the requester's or one that shows what it hides, larger limits, a
// carve-out made writable, best effort when the requester was strict,
// another backend than the requester's. The error names the offending
// path or host.
func Narrower(child, parent *Plan) error {
	if err := backendNarrower(child, parent); err != nil {
		return err
	}
	for _, g := range child.Grants {
		if !grantCovered(g, parent.Grants) {
			kind := "read"
			if g.Write {
				kind = "write"
			}
			return refuse(g.Path, "a nested "+kind+" grant must lie inside the requester's "+coverWord(g.Write), "grant a directory the requesting sandbox already has")
		}
	}
	for _, m := range child.Mounts {
		if m.Internal {
			continue // the child's own acbox binary and broker socket, added by acbox
		}
		if err := mountNarrower(m, parent); err != nil {
			return err
		}
	}
	for _, check := range []func(child, parent *Plan) error{protectNarrower, viewNarrower, limitsNarrower, tmpfsNarrower} {
		if err := check(child, parent); err != nil {
			return err
		}
	}
	if err := networkNarrower(child.Network, parent.Network); err != nil {
		return err
	}
	if child.BestEffort && !parent.BestEffort {
		return refuse("best_effort", "the requester runs strictly; its children must too", "drop best_effort")
	}
	return nil
}

// viewNarrower: a child sees the host only if its requester does, and
// hides at least what its requester hides wherever it could see it.
// backendNarrower: a child runs on its requester's backend. The backends
// confine differently (the native one adds Landlock and a user namespace,
// the docker one a container runtime's defaults), so another backend is
// not narrower in every respect, and which one runs is the requester's
// launcher's choice, not the member's (the coordinator gives a child that
// names none, or auto, its requester's).
func backendNarrower(child, parent *Plan) error {
	if child.Backend == parent.Backend {
		return nil
	}
	return AtField("backend", refuse("backend", fmt.Sprintf("the requester runs on the %s backend; a nested launch runs on its requester's backend, not %s", parent.Backend, child.Backend),
		"drop --backend, or give --backend "+parent.Backend))
}

func viewNarrower(child, parent *Plan) error {
	if child.View == ViewHost && parent.View != ViewHost {
		return refuse("view", "the requester sees only its grants; a nested launch may not see the whole host", "drop --view host")
	}
	for _, pm := range parent.Masks {
		if _, ok := maskOver(child.Masks, pm.Path); ok || !shows(child, pm.Path) {
			continue
		}
		return refuse(pm.Path, "the requester hides it ("+pm.Why+"); a nested launch may not show it", "drop the view or grant that shows it")
	}
	return nil
}

// shows: the child's sandbox shows path (its host view, a grant, a runtime
// mount's source at the same path, or a system directory).
func shows(p *Plan, path string) bool {
	if p.View == ViewHost {
		return true
	}
	for _, g := range p.Grants {
		if within(path, g.Path) {
			return true
		}
	}
	for _, sp := range p.System {
		if sp.Link == "" && within(path, sp.Path) {
			return true
		}
	}
	return false
}

// limitsNarrower: a child may not have more memory or processes than its
// requester (0 is the default, not "unlimited").
func limitsNarrower(child, parent *Plan) error {
	c, p := child.Limits, parent.Limits
	if c.Memory > p.Memory {
		return refuse("limits.memory", fmt.Sprintf("%d bytes is more than the requester's %d", c.Memory, p.Memory), "ask for no more than the requester's limits")
	}
	if c.Pids > p.Pids {
		return refuse("limits.pids", fmt.Sprintf("%d is more than the requester's %d", c.Pids, p.Pids), "ask for no more than the requester's limits")
	}
	return nil
}

// tmpfsNarrower: a child's tmpfs mounts are memory (see budget.go), so
// they count against the requester's limit. Resolve already holds them to
// the child's own limit, which limitsNarrower keeps at most the
// requester's; this says so by name, and holds for a plan built by hand.
func tmpfsNarrower(child, parent *Plan) error {
	total, err := tmpfsTotal(child.Tmpfs)
	if err != nil {
		return err
	}
	if total > parent.Limits.Memory {
		return refuse(largest(child.Tmpfs), fmt.Sprintf("a nested launch's tmpfs mounts count against the requester's memory limit: with /dev/shm they total %s, more than its %s",
			totalText(total), FormatSize(parent.Limits.Memory)), "ask for smaller tmpfs sizes")
	}
	return nil
}

func coverWord(write bool) string {
	if write {
		return "write grants"
	}
	return "read or write grants"
}

func grantCovered(g Grant, parents []Grant) bool {
	for _, p := range parents {
		if within(g.Path, p.Path) && (p.Write || !g.Write) {
			return true
		}
	}
	return false
}

// mountNarrower: a nested launch's runtime mounts are read-only (a
// writable view of a repository belongs in --write, which gets the
// carve-outs a mount does not), show a host path its requester can reach
// (a grant, or the source of one of its own mounts, both named by their
// host path, which the broker resolves), and show nothing the requester
// hides.
func mountNarrower(m Mount, parent *Plan) error {
	if !m.Readonly {
		return refuse(m.Source, "a nested launch's runtime mounts are read-only (carve-outs apply to write grants only)", "grant it with --write instead")
	}
	if !mountCovered(m, parent) {
		return refuse(m.Source, "a nested launch may only re-mount what its requester has", "")
	}
	for _, pm := range parent.Masks {
		if within(pm.Path, m.Source) || within(m.Source, pm.Path) {
			return refuse(m.Source, "it shows "+Quote(pm.Path)+", which the requester hides ("+pm.Why+")", "mount a narrower path")
		}
	}
	return nil
}

// mountCovered: the child's source (a host path) lies in a requester grant
// or in the host source of one of the requester's mounts. (The mount's
// target is a path inside the requester; the same path on the host may be
// something else entirely.)
func mountCovered(m Mount, parent *Plan) bool {
	if grantCovered(Grant{Path: m.Source}, parent.Grants) {
		return true
	}
	for _, pm := range parent.Mounts {
		if within(m.Source, pm.Source) {
			return true
		}
	}
	return false
}

// networkNarrower: the child's policy permits no destination its
// requester's does not, and in host mode lists only the requester's ports.
func networkNarrower(child, parent egress.Policy) error {
	if ok, why := child.NarrowerThan(parent); !ok {
		return refuse("network", why, "ask for no more than the requester's network policy")
	}
	if child.Mode == egress.ModeHost {
		if p := missingPort(child.ConnectPorts, parent.ConnectPorts); p != 0 {
			return refuse("network", fmt.Sprintf("--connect-port %d is not one of the requester's", p), "ask for no more than the requester's ports")
		}
		if p := missingPort(child.BindPorts, parent.BindPorts); p != 0 {
			return refuse("network", fmt.Sprintf("--bind-port %d is not one of the requester's", p), "ask for no more than the requester's ports")
		}
	}
	return nil
}

// missingPort returns the first port of child not in parent, or 0.
func missingPort(child, parent []uint16) uint16 {
	for _, c := range child {
		if !slices.Contains(parent, c) {
			return c
		}
	}
	return 0
}
