package policy

import (
	"fmt"

	"github.com/acbox/acbox/egress"
)

// resolveNetwork validates the network request and parses it, once, into
// the policy the plan carries, the proxy enforces and nested launches are
// narrowed against. Any allowlist turns the proxy on; an unknown mode or a
// bad entry is an error naming it.
func resolveNetwork(n NetworkSpec) (egress.Policy, error) {
	if err := checkPorts(n); err != nil {
		return egress.Policy{}, err
	}
	mode := n.Mode
	if mode == "" && n.Allow != nil {
		mode = "proxy"
	}
	m, err := egress.ParseMode(mode)
	if err != nil {
		return egress.Policy{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	out := egress.Policy{Mode: m, Allow: []egress.Rule{}}
	if m != egress.ModeProxy && n.Allow != nil && len(*n.Allow) > 0 {
		return egress.Policy{}, invalid("network mode %s with an allowlist: the allowlist applies only to the proxy; drop --net %s or the --allow entries", m, m)
	}
	if m == egress.ModeProxy {
		out.AllowAny = n.Allow == nil
		if n.Allow != nil {
			for _, a := range *n.Allow {
				r, err := egress.ParseRule(a)
				if err != nil {
					return egress.Policy{}, fmt.Errorf("%w: %w", ErrInvalid, err)
				}
				if err := checkReachable(r, a); err != nil {
					return egress.Policy{}, err
				}
				out.Allow = append(out.Allow, r)
			}
		}
	}
	if m == egress.ModeHost {
		out.ConnectPorts, out.BindPorts = n.ConnectPorts, n.BindPorts
	} else if len(n.ConnectPorts)+len(n.BindPorts) > 0 {
		return egress.Policy{}, invalid("--connect-port and --bind-port apply only to --net host")
	}
	return out, nil
}
