package egress

import (
	"fmt"
	"strconv"
	"strings"
)

// Rule is one allow-list entry. The written forms are "host", "*.host",
// "host:port", "*.host:port", "[v6]" and "[v6]:port"; [ParseRule] reads them
// and [Rule.String] writes them back.
type Rule struct {
	// Host is a lowercase DNS name without a trailing dot, or an IP address
	// in standard notation (IPv6 without brackets).
	Host string
	// Wildcard means "*.Host": every subdomain of Host at any depth, but not
	// Host itself. Only for names.
	Wildcard bool
	// Port is the one allowed port; 0 means 80 and 443.
	Port int
}

// ParseRule parses an allow-list entry; see [Rule] for the forms. Errors name
// the entry.
func ParseRule(s string) (Rule, error) {
	r, err := parseRule(strings.TrimSpace(s))
	if err != nil {
		return Rule{}, fmt.Errorf("allow entry %q: %w", s, err)
	}
	return r, nil
}

func parseRule(s string) (Rule, error) {
	var r Rule
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		r.Wildcard, s = true, rest
	}
	if strings.ContainsAny(s, "*") {
		return r, fmt.Errorf("'*' is only allowed as a leading \"*.\"")
	}
	host, port, err := splitHostPort(s)
	if err != nil {
		return r, err
	}
	if port != "" {
		if r.Port, err = parsePort(port); err != nil {
			return r, err
		}
	}
	h, addr, err := canonHost(host)
	if err != nil {
		return r, err
	}
	if r.Wildcard && addr.IsValid() {
		return r, fmt.Errorf("a wildcard needs a DNS name, not an address")
	}
	r.Host = h
	return r, nil
}

// String writes the rule in the form ParseRule reads.
func (r Rule) String() string {
	var b strings.Builder
	if r.Wildcard {
		b.WriteString("*.")
	}
	if strings.IndexByte(r.Host, ':') >= 0 {
		b.WriteString("[" + r.Host + "]")
	} else {
		b.WriteString(r.Host)
	}
	if r.Port != 0 {
		b.WriteString(":" + strconv.Itoa(r.Port))
	}
	return b.String()
}

// MarshalText writes the rule as a string, so JSON holds "*.example.com:443".
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses the rule with ParseRule.
func (r *Rule) UnmarshalText(b []byte) error {
	v, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// matchHost reports whether the canonical host h is one the rule names.
func (r Rule) matchHost(h string) bool {
	if r.Wildcard {
		return len(h) > len(r.Host)+1 && strings.HasSuffix(h, "."+r.Host)
	}
	return h == r.Host
}

// matchPort reports whether the rule allows port.
func (r Rule) matchPort(port int) bool {
	if r.Port == 0 {
		return port == 80 || port == 443
	}
	return port == r.Port
}

// covers reports whether every host:port of child (with one given port)
// is also allowed by r.
func (r Rule) covers(child Rule, port int) bool {
	if !r.matchPort(port) {
		return false
	}
	if !child.Wildcard {
		return r.matchHost(child.Host)
	}
	// *.a.b is within *.b and within *.a.b, never within an exact name.
	return r.Wildcard && (child.Host == r.Host || r.matchHost(child.Host))
}

// ports lists the ports a rule allows.
func (r Rule) ports() []int {
	if r.Port == 0 {
		return []int{80, 443}
	}
	return []int{r.Port}
}
