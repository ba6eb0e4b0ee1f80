package egress

import (
	"net/netip"
	"strings"
)

// ParseIPLiteral reports whether s is an IP address literal, in any notation
// that inet_aton(3) or getaddrinfo(3) accepts, and returns the address it
// really names. IPv4 may be written with one to four parts, each decimal,
// octal (leading 0) or hexadecimal (leading 0x): "2130706433", "0177.0.0.1",
// "0x7f.1", "127.1" and "127.0.1" all name 127.0.0.1. IPv6 is written
// without brackets; zones are refused.
//
// The proxy uses it so that a literal is judged as the address it is and is
// never handed to a resolver, which might read it differently.
func ParseIPLiteral(s string) (netip.Addr, bool) {
	if strings.IndexByte(s, ':') >= 0 {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return netip.Addr{}, false
		}
		return a, true
	}
	return parseIPv4Any(s)
}

// parseIPv4Any follows glibc's inet_aton: the last part fills all the bytes
// the earlier parts left over (a.b is 8.24 bits, a.b.c is 8.8.16).
func parseIPv4Any(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var ip uint32
	for i, p := range parts {
		v, ok := parseAtonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if v > 0xff {
				return netip.Addr{}, false
			}
			ip |= uint32(v) << (24 - 8*i)
			continue
		}
		if v > uint64(1)<<(8*(5-len(parts)))-1 {
			return netip.Addr{}, false
		}
		ip |= uint32(v)
	}
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// parseAtonPart parses one part the way strtoul(p, &end, 0) does, requiring
// that the whole part is consumed and fits in 32 bits.
func parseAtonPart(p string) (uint64, bool) {
	base := uint64(10)
	switch {
	case len(p) > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		d, ok := digitValue(p[i])
		if !ok || d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// endsInNumber reports whether the last label of a name is numeric (decimal,
// or 0x and hex digits). Such a name that is not a valid literal is refused
// rather than resolved: resolvers disagree about what it means (this is the
// WHATWG URL rule).
func endsInNumber(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}
