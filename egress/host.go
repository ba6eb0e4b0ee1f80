package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// canonHost returns the canonical form of a host name or IP literal: a name in
// lowercase without a trailing dot, or an address written the standard way
// (IPv6 without brackets). addr is valid when the host is a literal.
// Brackets are accepted around IPv6 and required by callers that also parse
// a port.
func canonHost(s string) (host string, addr netip.Addr, err error) {
	if strings.HasPrefix(s, "[") {
		if !strings.HasSuffix(s, "]") {
			return "", addr, errors.New("unterminated [")
		}
		a, ok := ParseIPLiteral(s[1 : len(s)-1])
		if !ok || !a.Is6() {
			return "", addr, errors.New("not an IPv6 address in brackets")
		}
		return a.String(), a, nil
	}
	if len(s) > 1 && strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	if a, ok := ParseIPLiteral(s); ok {
		return a.String(), a, nil
	}
	if strings.IndexByte(s, ':') >= 0 {
		return "", addr, errors.New("not an IPv6 address")
	}
	s = strings.ToLower(s)
	if err := checkName(s); err != nil {
		return "", addr, err
	}
	return s, addr, nil
}

// checkName accepts DNS names of letters, digits, '-' and '_' (seen in real
// host names). Non-ASCII names must be written in punycode (xn--).
func checkName(s string) error {
	if s == "" {
		return errors.New("empty host")
	}
	if len(s) > 253 {
		return errors.New("host name longer than 253 bytes")
	}
	if endsInNumber(s) {
		return errors.New("ends in a number but is not an IPv4 address")
	}
	for _, label := range strings.Split(s, ".") {
		if err := checkLabel(label); err != nil {
			return err
		}
	}
	return nil
}

func checkLabel(l string) error {
	if l == "" || len(l) > 63 {
		return errors.New("empty or over-long label")
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '-' || c == '_' {
			continue
		}
		if c >= 0x80 {
			return errors.New("non-ASCII name: write it in punycode (xn--...)")
		}
		return fmt.Errorf("character %q not allowed in a host name", c)
	}
	return nil
}

// parsePort parses a decimal TCP port, 1 to 65535, digits only.
func parsePort(s string) (int, error) {
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("bad port %q", s)
		}
		n = n*10 + int(s[i]-'0')
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %d out of range 1-65535", n)
	}
	return n, nil
}

// splitHostPort splits "host", "host:port", "[v6]" and "[v6]:port". port is
// "" when absent. An IPv6 address without brackets is refused: its last
// group would read as a port.
func splitHostPort(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", errors.New("unterminated [")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, "", nil
		}
		if rest[0] != ':' || rest == ":" {
			return "", "", errors.New("junk after ]")
		}
		return host, rest[1:], nil
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, "", nil
	case 1:
		i := strings.IndexByte(s, ':')
		if i == len(s)-1 {
			return "", "", errors.New("empty port")
		}
		return s[:i], s[i+1:], nil
	}
	return "", "", errors.New("IPv6 addresses need brackets: [addr] or [addr]:port")
}
