package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestResolveNetworkJSON pins the plan's "network" block (in `acbox plan`,
// ACBOX_ACCESS and the helper's config) for each shape of request: the
// request is parsed once into the proxy's policy, and its JSON is the same
// as before that policy was the plan's own type.
func TestResolveNetworkJSON(t *testing.T) {
	list := func(s ...string) *[]string { return &s }
	tests := []struct {
		name string
		in   NetworkSpec
		want string
	}{
		{"default", NetworkSpec{}, `{"mode":"none","allow":[],"allow_any":false}`},
		{"proxy, any public", NetworkSpec{Mode: "proxy"}, `{"mode":"proxy","allow":[],"allow_any":true}`},
		{"proxy, none", NetworkSpec{Mode: "proxy", Allow: list()}, `{"mode":"proxy","allow":[],"allow_any":false}`},
		{"allow list turns the proxy on, written canonically", NetworkSpec{Allow: list(" API.example.com. ", "*.Example.org:8443", "[2606:4700::1]:80")},
			`{"mode":"proxy","allow":["api.example.com","*.example.org:8443","[2606:4700::1]:80"],"allow_any":false}`},
		{"host with ports", NetworkSpec{Mode: "host", ConnectPorts: []uint16{443}, BindPorts: []uint16{8080}},
			`{"mode":"host","allow":[],"allow_any":false,"connect_ports":[443],"bind_ports":[8080]}`},
		{"none with an empty list", NetworkSpec{Mode: "none", Allow: list()}, `{"mode":"none","allow":[],"allow_any":false}`},
	}
	for _, tt := range tests {
		n, err := resolveNetwork(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if b, _ := json.Marshal(n); string(b) != tt.want {
			t.Errorf("%s: %s; want %s", tt.name, b, tt.want)
		}
	}
}

// TestResolveNetworkRefuses: each refusal is ErrInvalid
// and names the entry or flag at fault.
func TestResolveNetworkRefuses(t *testing.T) {
	list := func(s ...string) *[]string { return &s }
	tests := []struct {
		in   NetworkSpec
		want string
	}{
		{NetworkSpec{Mode: "bridge"}, `"bridge"`},
		{NetworkSpec{Mode: "proxy", Allow: list("a.test", "*")}, `allow entry "*"`},
		{NetworkSpec{Mode: "host", Allow: list("a.test")}, "the allowlist applies only to the proxy"},
		{NetworkSpec{Mode: "proxy", ConnectPorts: []uint16{22}}, "apply only to --net host"},
	}
	for _, tt := range tests {
		_, err := resolveNetwork(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("resolveNetwork(%+v) = %v; want an invalid-spec error containing %q", tt.in, err, tt.want)
		}
	}
}
