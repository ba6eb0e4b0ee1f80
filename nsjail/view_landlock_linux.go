package nsjail

import (
	"slices"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/landlock"
)

// viewReadOnly is where Landlock's read-only rule starts: beneath "/" in the
// host view (the whole read-only host), beneath /proc in the grants view,
// whose other read-only paths follow from the plan.
func viewReadOnly(p *policy.Plan) []string {
	if isHostView(p) {
		return []string{"/"}
	}
	return []string{"/proc"}
}

// hostViewSockets says whether pathname Unix sockets elsewhere on the host
// are out of reach in the host view. A read-only mount does not stop
// connect(); Landlock's resolve_unix right (ABI 9) does, and the read-only
// rule withholds it. Before ABI 9 only the masks (/run among them) hide
// sockets, so a socket in any other visible directory stays connectable.
// It is reported, not required: the host view is usable on older kernels.
func hostViewSockets(lr landlock.Report) policy.Control {
	c := policy.Control{Name: "host_view_unix_sockets", Requested: false}
	c.Enforced = lr.Enforced && slices.Contains(lr.HandledFS, "resolve_unix")
	if !c.Enforced {
		c.Why = "Landlock ABI < 9: Unix sockets outside the masked paths stay connectable in --view host"
	}
	return c
}
