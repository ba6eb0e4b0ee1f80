package egress

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// HostAddrs returns every address on this host's network interfaces. The
// proxy refuses them even when they are public: a service listening on the
// host's public address is still the host.
func HostAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("list host addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if na, ok := netip.AddrFromSlice(ip); ok {
			out = append(out, na.Unmap())
		}
	}
	return out, nil
}

// hostAddrTTL is how long the default checker trusts its copy of HostAddrs:
// interfaces change (DHCP, VPNs), but listing them per request is wasteful.
const hostAddrTTL = 5 * time.Second

// publicChecker is the default Config.IsPublic: Classify, then "not an
// address of this host". It fails closed when the host's addresses cannot be
// listed.
type publicChecker struct {
	classify func(netip.Addr) (bool, string)
	list     func() ([]netip.Addr, error)

	mu      sync.Mutex
	addrs   map[netip.Addr]bool
	fetched time.Time
}

func (c *publicChecker) isPublic(a netip.Addr) (bool, string) {
	if ok, why := c.classify(a); !ok {
		return false, why
	}
	host, err := c.hostAddrs()
	if err != nil {
		return false, err.Error()
	}
	if host[dialForm(a)] || host[a] {
		return false, "an address of this host"
	}
	return true, ""
}

func (c *publicChecker) hostAddrs() (map[netip.Addr]bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addrs != nil && time.Since(c.fetched) < hostAddrTTL {
		return c.addrs, nil
	}
	list, err := c.list()
	if err != nil {
		return nil, err
	}
	c.addrs = make(map[netip.Addr]bool, len(list))
	for _, a := range list {
		c.addrs[a.WithZone("")] = true
	}
	c.fetched = time.Now()
	return c.addrs, nil
}
