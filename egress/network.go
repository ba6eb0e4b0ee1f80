package egress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Network is the JSON form of a Policy: {"mode": "proxy", "allow": [...]}.
// An omitted "allow" means any public destination; "allow": [] means none.
// "allow": null is refused as ambiguous, and so are unknown keys and an allow
// list outside proxy mode.
type Network struct {
	Mode Mode `json:"mode"`
	// Allow is nil when the list was omitted.
	Allow []Rule `json:"allow,omitzero"`
}

// Policy converts the JSON form to a Policy.
func (n Network) Policy() (Policy, error) {
	m, err := ParseMode(string(n.Mode))
	if err != nil {
		return Policy{}, err
	}
	if m != ModeProxy {
		if n.Allow != nil {
			return Policy{}, fmt.Errorf("network: \"allow\" applies only to mode proxy, not %s", m)
		}
		return Policy{Mode: m}, nil
	}
	return Policy{Mode: m, Allow: n.Allow, AllowAny: n.Allow == nil}, nil
}

// Network returns the JSON form of the policy.
func (p Policy) Network() Network {
	n := Network{Mode: p.Mode.norm()}
	if n.Mode == ModeProxy && !p.AllowAny {
		n.Allow = append([]Rule{}, p.Allow...)
	}
	return n
}

// MarshalJSON writes the policy in its Network form.
func (p Policy) MarshalJSON() ([]byte, error) { return json.Marshal(p.Network()) }

// UnmarshalJSON reads the Network form.
func (p *Policy) UnmarshalJSON(b []byte) error {
	var n Network
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	v, err := n.Policy()
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalJSON reads {"mode": ..., "allow": [...]} strictly.
func (n *Network) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if raw == nil {
		return errors.New("network: null is not a network policy")
	}
	if err := checkKeys(raw); err != nil {
		return err
	}
	var v Network
	if m, ok := raw["mode"]; ok {
		var s string
		if err := json.Unmarshal(m, &s); err != nil {
			return fmt.Errorf("network: mode: %w", err)
		}
		mode, err := ParseMode(s)
		if err != nil {
			return fmt.Errorf("network: %w", err)
		}
		v.Mode = mode
	}
	if a, ok := raw["allow"]; ok {
		if bytes.Equal(bytes.TrimSpace(a), []byte("null")) {
			return errors.New(`network: "allow": null is ambiguous: omit it for any public destination, or use [] for none`)
		}
		v.Allow = []Rule{}
		if err := json.Unmarshal(a, &v.Allow); err != nil {
			return fmt.Errorf("network: allow: %w", err)
		}
	}
	*n = v
	return nil
}

func checkKeys(raw map[string]json.RawMessage) error {
	var bad []string
	for k := range raw {
		if k != "mode" && k != "allow" {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("network: unknown key %s: use mode and allow", strings.Join(bad, ", "))
}
