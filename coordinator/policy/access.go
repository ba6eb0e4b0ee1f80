package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acbox/acbox/egress"
)

// The access JSON (ACBOX_ACCESS) is what the member may reach, in the shape
// the agent-team extension's members read (its AC_TEAMS_ACCESS):
//
//	{"enforced":true,"read":[...],"write":[...],"network":{"allow":[...]}}
//
// with "allow" omitted for any public destination (proxy mode without a
// list, and host mode), [] for none, and otherwise the rules sorted. Keys
// beyond the extension's ("backend", network "mode" and the host-mode
// ports) are extra; a reader ignores what it does not know. There is no
// "allow_any": the absent list says it, as in the extension.

// accessJSON is the access JSON's shape.
type accessJSON struct {
	Enforced bool          `json:"enforced"`
	Backend  string        `json:"backend"`
	Read     []string      `json:"read"`
	Write    []string      `json:"write"`
	Network  accessNetwork `json:"network"`
}

type accessNetwork struct {
	Mode         egress.Mode `json:"mode"`
	Allow        *[]string   `json:"allow,omitempty"` // nil: any public destination
	ConnectPorts []uint16    `json:"connect_ports,omitempty"`
	BindPorts    []uint16    `json:"bind_ports,omitempty"`
}

// Access returns the ACBOX_ACCESS value: what the member can reach.
func (p *Plan) Access(enforced bool) string {
	a := accessJSON{Enforced: enforced, Backend: p.Backend, Read: []string{}, Write: []string{}, Network: accessNet(p.Network)}
	for _, g := range p.Grants {
		if g.Write {
			a.Write = append(a.Write, g.Path)
		} else {
			a.Read = append(a.Read, g.Path)
		}
	}
	return string(a.appendJSON(make([]byte, 0, 256)))
}

// appendJSON appends a as json.Marshal writes it (by hand: see
// jsonenc.go; TestAccessJSONMatches holds the two together).
func (a *accessJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"enforced":`...)
	b = strconv.AppendBool(b, a.Enforced)
	b = append(b, `,"backend":`...)
	b = AppendJSONString(b, a.Backend)
	b = append(b, `,"read":`...)
	b = appendJSONStringsOrNull(b, a.Read)
	b = append(b, `,"write":`...)
	b = appendJSONStringsOrNull(b, a.Write)
	b = append(b, `,"network":{"mode":`...)
	n := &a.Network
	b = AppendJSONString(b, string(n.Mode))
	if n.Allow != nil {
		b = append(b, `,"allow":`...)
		b = appendJSONStringsOrNull(b, *n.Allow)
	}
	if len(n.ConnectPorts) > 0 {
		b = append(b, `,"connect_ports":`...)
		b = appendJSONUints(b, n.ConnectPorts)
	}
	if len(n.BindPorts) > 0 {
		b = append(b, `,"bind_ports":`...)
		b = appendJSONUints(b, n.BindPorts)
	}
	return append(b, "}}"...)
}

// appendJSONStringsOrNull is AppendJSONStrings, with a nil list as null
// (as encoding/json writes a nil slice).
func appendJSONStringsOrNull(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	return AppendJSONStrings(b, list)
}

func accessNet(n egress.Policy) accessNetwork {
	out := accessNetwork{Mode: n.Mode, ConnectPorts: n.ConnectPorts, BindPorts: n.BindPorts}
	if out.Mode == "" {
		out.Mode = egress.ModeNone
	}
	switch {
	case out.Mode == egress.ModeHost, out.Mode == egress.ModeProxy && n.AllowAny:
		return out // any public destination: no list, as the extension has it
	case out.Mode == egress.ModeNone:
		out.Allow = &[]string{}
		return out
	}
	list := make([]string, 0, len(n.Allow))
	for _, r := range n.Allow {
		list = append(list, r.String())
	}
	slices.Sort(list)
	out.Allow = &list
	return out
}

// AccessVars are the member's variables that hold the access JSON:
// ACBOX_ACCESS and each name of the spec's access_env, all the same value.
func (p *Plan) AccessVars(access string) []string {
	out := []string{"ACBOX_ACCESS=" + access}
	for _, k := range p.AccessEnv {
		out = append(out, k+"="+access)
	}
	return out
}

// accessEnvName tells whether k has the form of an access_env name, a
// portable shell variable name in upper case (^[A-Z_][A-Z0-9_]*$), as the
// extension's AC_TEAMS_ACCESS. A hand check, not a regexp compiled at
// every process's start.
func accessEnvName(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// checkAccessEnv refuses an access_env name that is not of that form, that
// acbox sets itself (the member's fixed environment, the proxy variables,
// ACBOX_*), or that the spec's env or pass_env sets too: each would give
// the member one variable with two meanings.
func checkAccessEnv(s Spec) ([]string, error) {
	var out []string
	for i, k := range s.AccessEnv {
		field := fmt.Sprintf("access_env[%d]", i)
		switch {
		case !accessEnvName(k):
			return nil, AtField(field, invalid("access_env %q: want a name of capitals, digits and _ (not starting with a digit), e.g. AC_TEAMS_ACCESS", k))
		case setByAcbox(k):
			return nil, AtField(field, invalid("access_env %q: acbox sets %s itself: choose another name", k, k))
		case hasKey(s.Env, k) || slices.Contains(s.PassEnv, k):
			return nil, AtField(field, invalid("access_env %q: env or pass_env sets it too: give it in one place", k))
		case slices.Contains(out, k):
			continue
		}
		out = append(out, k)
	}
	return out, nil
}

// setByAcbox: the names of the member's fixed environment (buildEnv), the
// proxy variables, the forwarded locale and colour ones, and ACBOX_*.
func setByAcbox(k string) bool {
	if strings.HasPrefix(k, "ACBOX_") || strings.HasPrefix(k, "LC_") || slices.Contains(forwarded, k) {
		return true
	}
	if slices.Contains([]string{"PATH", "HOME", "TMPDIR", "USER"}, k) {
		return true
	}
	for _, kv := range proxyEnv {
		if name, _, _ := strings.Cut(kv, "="); strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }
