package egress

import "fmt"

// Mode is a sandbox's network mode.
type Mode string

// The network modes. The zero Mode means ModeNone.
const (
	ModeNone  Mode = "none"  // no network at all
	ModeProxy Mode = "proxy" // only through the egress proxy
	ModeHost  Mode = "host"  // the host's network, unfiltered
)

// ParseMode parses a mode name. The empty string is ModeNone.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeNone:
		return ModeNone, nil
	case ModeProxy, ModeHost:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown network mode %q: use none, proxy or host", s)
}

// norm maps the zero Mode to ModeNone.
func (m Mode) norm() Mode {
	if m == "" {
		return ModeNone
	}
	return m
}

func (m Mode) valid() bool {
	switch m.norm() {
	case ModeNone, ModeProxy, ModeHost:
		return true
	}
	return false
}
