package policy

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/acbox/acbox/egress"
)

// The checks in this file hold one rule per launch key, whichever way the
// key arrives: a flag, a key of a JSON spec or of a profile all build the
// same Spec, and Resolve applies these to it.

// reservedDir is acbox's own directory inside every sandbox (delegation's
// binary and broker socket, the docker backend's init, gate and proxy,
// the escape suite's runner). A mount or tmpfs of a spec under it would
// hide or shadow those, so only acbox's internal mounts may target it.
func reservedDir(dst string) bool { return within(dst, DelegateDir) }

// checkEnvName refuses a variable name no shell could use and env(1)
// would not set as meant: empty, with '=', whitespace or a control
// character (a NUL included), or ACBOX_ (acbox's own).
func checkEnvName(k string) error {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r == '=' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return invalid("environment name %q is not valid: use letters, digits and _ (no spaces, '=' or control characters)", k)
	}
	if strings.HasPrefix(k, "ACBOX_") {
		return invalid("environment name %q: ACBOX_ variables are set by acbox itself", k)
	}
	return nil
}

func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }

// checkPorts refuses port 0 (no connection can be made to it, and a bind
// to it is a bind to any port).
func checkPorts(n NetworkSpec) error {
	for _, list := range []struct {
		name  string
		ports []uint16
	}{{"connect", n.ConnectPorts}, {"bind", n.BindPorts}} {
		for i, p := range list.ports {
			if p == 0 {
				return invalid("access.network.%s_ports[%d] is 0 (--%s-port 0): give a TCP port from 1 to 65535", list.name, i, list.name)
			}
		}
	}
	return nil
}

// checkReachable refuses an allow entry the proxy would refuse at every
// request anyway: an address literal that is not public (loopback,
// private, link-local...) or the name localhost. Accepting it would let a
// launch look as if it could reach that service.
func checkReachable(r egress.Rule, entry string) error {
	host := strings.TrimSuffix(r.Host, ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return invalid("allow entry %q: localhost is never reachable through the proxy, which refuses loopback; for a service on this host use --net host --connect-port PORT", entry)
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a DNS name: judged at each request
	}
	if public, why := egress.Classify(a); !public {
		return invalid("allow entry %q: %s is never reachable through the proxy, which refuses it (%s); for a service on this host use --net host --connect-port PORT", entry, a, why)
	}
	return nil
}

// ParseTmpfsFlag reads PATH[:SIZE]; a colon with no size is refused (it
// would silently read as the default size).
func ParseTmpfsFlag(s string) (TmpfsSpec, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return TmpfsSpec{Target: s}, nil
	}
	t := TmpfsSpec{Target: s[:i], Size: s[i+1:]}
	if t.Size == "" || t.Target == "" {
		return t, invalid("--tmpfs %q: want PATH or PATH:SIZE, such as /cache:256MiB", s)
	}
	return t, nil
}

// emptyValueError is the refusal of a JSON key given "" or 0, which
// would read as leaving it out.
func emptyValueError(path, value string) error {
	return invalid("spec: %s is %s: leave it out for the default, or give a value", path, value)
}
