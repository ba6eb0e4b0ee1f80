package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
)

// connect checks t against the policy, resolves it if it is a name, checks
// every address, and dials one of exactly those addresses.
func (p *Proxy) connect(t target) (net.Conn, string, error) {
	if ok, why := p.cfg.Policy.Permits(t.host, t.port); !ok {
		return nil, "", fail(http.StatusForbidden, "%s", why)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.HeaderTimeout)
	defer cancel()
	addrs, err := p.addrs(ctx, t.host)
	if err != nil {
		return nil, "", err
	}
	return p.dial(ctx, addrs, t.port)
}

// addrs returns the checked addresses of host. A literal is never resolved;
// a name is refused if ANY of its addresses is refused, so a DNS answer
// cannot mix a private address in with public ones.
func (p *Proxy) addrs(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs := []netip.Addr{}
	if a, ok := ParseIPLiteral(host); ok {
		addrs = append(addrs, a)
	} else {
		var err error
		if addrs, err = p.cfg.Resolve(ctx, host); err != nil {
			return nil, fail(http.StatusBadGateway, "resolve %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fail(http.StatusBadGateway, "resolve %s: no addresses", host)
		}
	}
	for _, a := range addrs {
		// Judge the form that will be dialed (::ffff:a.b.c.d is a.b.c.d).
		if ok, why := p.cfg.IsPublic(dialForm(a)); !ok {
			if a.String() == host {
				return nil, fail(http.StatusForbidden, "%s: %s", host, why)
			}
			return nil, fail(http.StatusForbidden, "%s resolves to %s: %s", host, a, why)
		}
	}
	return addrs, nil
}

// dial tries the checked addresses in order and returns the first
// connection, tracked so Close reaches it.
func (p *Proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, string, error) {
	var errs []error
	for _, a := range addrs {
		addr := net.JoinHostPort(dialForm(a).String(), strconv.Itoa(port))
		c, err := p.cfg.Dial(ctx, "tcp", addr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !p.addConn(c) {
			c.Close()
			return nil, "", fail(http.StatusServiceUnavailable, "proxy closing")
		}
		return c, addr, nil
	}
	return nil, "", fail(http.StatusBadGateway, "dial: %w", errors.Join(errs...))
}
