package egress

import (
	"net/netip"
)

type refusedRange struct {
	prefix netip.Prefix
	what   string
}

func ranges(pairs ...string) []refusedRange {
	out := make([]refusedRange, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, refusedRange{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// refusedV4 lists the IPv4 ranges that are not public destinations
// (IANA special-purpose registry, RFC 6890 and successors).
var refusedV4 = ranges(
	"0.0.0.0/8", "this network",
	"10.0.0.0/8", "private",
	"100.64.0.0/10", "shared address space (CGNAT)",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local (cloud metadata)",
	"172.16.0.0/12", "private",
	"192.0.0.0/24", "IETF protocol assignments",
	"192.0.2.0/24", "documentation",
	"192.88.99.0/24", "6to4 relay anycast",
	"192.168.0.0/16", "private",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation",
	"203.0.113.0/24", "documentation",
	"224.0.0.0/3", "multicast, reserved or broadcast",
)

// refusedV6 lists IPv6 ranges refused with a specific reason; anything else
// outside 2000::/3 is refused as not global unicast.
var refusedV6 = ranges(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"64:ff9b::/96", "NAT64 translated",
	"64:ff9b:1::/48", "local-use NAT64 translated",
	"100::/64", "discard-only",
	"2001::/23", "IETF protocol assignments (Teredo and others)",
	"2001:db8::/32", "documentation",
	"2002::/16", "6to4",
	"3fff::/20", "documentation",
	"fc00::/7", "unique local",
	"fe80::/10", "link-local",
	"ff00::/8", "multicast",
)

var globalUnicast = netip.MustParsePrefix("2000::/3")

// Classify reports whether a is a public destination, and if not, why.
// IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses are
// judged as the IPv4 address they carry. Addresses with a zone are refused.
// Classify does not know this host's own addresses; see [HostAddrs].
func Classify(a netip.Addr) (public bool, reason string) {
	switch {
	case !a.IsValid():
		return false, "invalid address"
	case a.Zone() != "":
		return false, "address with a zone"
	case a.Is4In6():
		return classify4(a.Unmap(), "IPv4-mapped ")
	case a.Is4():
		return classify4(a, "")
	}
	for _, r := range refusedV6[:2] { // :: and ::1 before the compatible form
		if r.prefix.Contains(a) {
			return false, r.what + " " + r.prefix.String()
		}
	}
	if v4, ok := compatV4(a); ok {
		return classify4(v4, "IPv4-compatible ")
	}
	for _, r := range refusedV6[2:] {
		if r.prefix.Contains(a) {
			return false, r.what + " " + r.prefix.String()
		}
	}
	if !globalUnicast.Contains(a) {
		return false, "not global unicast (outside 2000::/3)"
	}
	return true, ""
}

func classify4(a netip.Addr, form string) (bool, string) {
	for _, r := range refusedV4 {
		if r.prefix.Contains(a) {
			return false, form + r.what + " " + r.prefix.String()
		}
	}
	return true, ""
}

// compatV4 returns the IPv4 address in an IPv4-compatible IPv6 address
// (::a.b.c.d, the first 96 bits zero).
func compatV4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	for _, x := range b[:12] {
		if x != 0 {
			return netip.Addr{}, false
		}
	}
	return netip.AddrFrom4([4]byte(b[12:])), true
}

// dialForm is the address the proxy dials for a checked address: the IPv4
// address it was judged as, for the mapped and compatible forms.
func dialForm(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() && a.Zone() == "" {
		if v4, ok := compatV4(a); ok && a.Compare(netip.IPv6Unspecified()) != 0 && a != netip.IPv6Loopback() {
			return v4
		}
	}
	return a
}
