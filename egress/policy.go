package egress

import (
	"fmt"
	"net"
	"strconv"
)

// Policy is a sandbox's network policy: the one value the plan carries, the
// proxy enforces and nested launches are narrowed against. Its JSON form is
// the plan's "network" block, with each rule written as [Rule.String] does:
//
//	{"mode":"proxy","allow":["api.example.com","*.example.org:8443"],"allow_any":false}
//
// Decoding it parses every rule again, so a policy read from JSON holds only
// rules [ParseRule] accepts; nothing else is checked there (the launch spec's
// request form is checked where it is resolved).
type Policy struct {
	// Mode is the network mode; the zero value means ModeNone.
	Mode Mode `json:"mode"`
	// Allow lists the destinations of proxy mode. An empty list allows
	// nothing. Ignored when AllowAny is set.
	Allow []Rule `json:"allow"`
	// AllowAny allows any public destination in proxy mode. It is what an
	// omitted allow list means.
	AllowAny bool `json:"allow_any"`
	// ConnectPorts and BindPorts are the only TCP ports host mode may
	// connect to and bind; the native backend enforces them with Landlock.
	// The proxy never sees host mode, and [Policy.Permits] and
	// [Policy.NarrowerThan] do not judge them (coordinator/policy's
	// Narrower holds a nested launch to its requester's ports).
	ConnectPorts []uint16 `json:"connect_ports,omitempty"`
	BindPorts    []uint16 `json:"bind_ports,omitempty"`
}

// Permits reports whether the policy allows connecting to host:port, and if
// not, why. host may be a name or an IP literal in any notation. Permits
// judges the name only: the proxy still refuses destinations that are not
// public. Host mode permits everything.
func (p Policy) Permits(host string, port int) (bool, string) {
	switch p.Mode.norm() {
	case ModeNone:
		return false, "network mode is none"
	case ModeHost:
		return true, ""
	case ModeProxy:
	default:
		return false, fmt.Sprintf("unknown network mode %q", p.Mode)
	}
	if port < 1 || port > 65535 {
		return false, fmt.Sprintf("port %d out of range", port)
	}
	h, _, err := canonHost(host)
	if err != nil {
		return false, fmt.Sprintf("bad host %q: %v", host, err)
	}
	if p.AllowAny {
		return true, ""
	}
	for _, r := range p.Allow {
		if r.matchHost(h) && r.matchPort(port) {
			return true, ""
		}
	}
	return false, net.JoinHostPort(h, strconv.Itoa(port)) + " is not on the allow list"
}

// NarrowerThan reports whether every destination child permits is one parent
// permits too, so a nested sandbox with child cannot reach more than its
// parent. Host mode fits only under host mode; proxy mode with any public
// destination only under the same or host mode; none under anything. When it
// does not fit, why names the offending entry.
func (child Policy) NarrowerThan(parent Policy) (ok bool, why string) {
	cm, pm := child.Mode.norm(), parent.Mode.norm()
	switch {
	case !cm.valid():
		return false, fmt.Sprintf("unknown network mode %q", child.Mode)
	case !pm.valid():
		return false, fmt.Sprintf("unknown parent network mode %q", parent.Mode)
	case cm == ModeNone || pm == ModeHost:
		return true, ""
	case cm == ModeHost:
		return false, "network mode host needs a parent in mode host, not " + string(pm)
	case pm != ModeProxy:
		return false, "network mode proxy needs a parent in mode proxy or host, not " + string(pm)
	case parent.AllowAny:
		return true, ""
	case child.AllowAny:
		return false, "an omitted allow list (any public destination) needs a parent that allows any too"
	}
	for _, c := range child.Allow {
		if !coveredBy(c, parent.Allow) {
			return false, fmt.Sprintf("allow entry %q is not within the parent's allow list", c.String())
		}
	}
	return true, ""
}

// coveredBy reports whether every port of c is covered by some parent rule;
// different ports may be covered by different rules ("a:80" and "a:443"
// together cover "a").
func coveredBy(c Rule, parents []Rule) bool {
	for _, port := range c.ports() {
		found := false
		for _, p := range parents {
			if p.covers(c, port) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
