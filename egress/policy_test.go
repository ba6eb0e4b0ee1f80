package egress

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeNone, "none": ModeNone, "proxy": ModeProxy, "host": ModeHost} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Proxy", "bridge", " none"} {
		_, err := ParseMode(in)
		if err == nil || !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), "none, proxy or host") {
			t.Errorf("ParseMode(%q) error = %v; want it to name the value and the valid ones", in, err)
		}
	}
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		str  string
	}{
		{"example.com", Rule{Host: "example.com"}, "example.com"},
		{"Example.COM.", Rule{Host: "example.com"}, "example.com"},
		{"*.example.com", Rule{Host: "example.com", Wildcard: true}, "*.example.com"},
		{"example.com:8443", Rule{Host: "example.com", Port: 8443}, "example.com:8443"},
		{"*.Example.com.:443", Rule{Host: "example.com", Wildcard: true, Port: 443}, "*.example.com:443"},
		{"[2001:DB8::1]:443", Rule{Host: "2001:db8::1", Port: 443}, "[2001:db8::1]:443"},
		{"[2001:db8::1]", Rule{Host: "2001:db8::1"}, "[2001:db8::1]"},
		{"1.2.3.4", Rule{Host: "1.2.3.4"}, "1.2.3.4"},
		{"0x01020304:80", Rule{Host: "1.2.3.4", Port: 80}, "1.2.3.4:80"},
		{"under_score.example", Rule{Host: "under_score.example"}, "under_score.example"},
		{"  spaced.example ", Rule{Host: "spaced.example"}, "spaced.example"},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseRule(%q) = %+v (%q), %v; want %+v (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
	}
}

func TestParseRuleRefuses(t *testing.T) {
	for _, in := range []string{
		"", "*", "*.", "a.*.com", "*example.com", "**.example.com", "example.com:", "example.com:0",
		"example.com:65536", "example.com:+80", "example.com:8o", "2001:db8::1", "2001:db8::1:443",
		"[2001:db8::1", "[2001:db8::1]x", "[1.2.3.4]", "[fe80::1%eth0]", "*.1.2.3.4", "*.[::1]",
		"exa mple.com", "user@example.com", "exämple.com", "a..b", "1.2.3.4.5", "999.1.1.1", "example.0x10",
		strings.Repeat("a", 64) + ".com", "http://example.com", "example.com/path",
	} {
		if r, err := ParseRule(in); err == nil {
			t.Errorf("ParseRule(%q) = %+v; want an error", in, r)
		} else if !strings.Contains(err.Error(), "\""+in+"\"") && in != "" {
			t.Errorf("ParseRule(%q) error %q does not name the entry", in, err)
		}
	}
}

func rules(t testing.TB, ss ...string) []Rule {
	out := []Rule{}
	for _, s := range ss {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestPermits(t *testing.T) {
	list := Policy{Mode: ModeProxy, Allow: rules(t, "example.com", "*.wild.test", "alt.test:8080", "[2001:db8::1]:443", "1.2.3.4")}
	tests := []struct {
		name string
		pol  Policy
		host string
		port int
		want bool
	}{
		{"exact 443", list, "example.com", 443, true},
		{"exact 80", list, "example.com", 80, true},
		{"exact other port", list, "example.com", 8080, false},
		{"case and dot", list, "EXAMPLE.com.", 443, true},
		{"subdomain of exact", list, "www.example.com", 443, false},
		{"suffix trick", list, "badexample.com", 443, false},
		{"wildcard child", list, "a.wild.test", 443, true},
		{"wildcard grandchild", list, "a.b.wild.test", 80, true},
		{"wildcard not apex", list, "wild.test", 443, false},
		{"wildcard suffix trick", list, "xwild.test", 443, false},
		{"port rule", list, "alt.test", 8080, true},
		{"port rule not 443", list, "alt.test", 443, false},
		{"v6 literal", list, "2001:db8:0::1", 443, true},
		{"v6 literal bracketed", list, "[2001:db8::1]", 443, true},
		{"v4 literal other notation", list, "0x01020304", 80, true},
		{"v4 short notation", list, "1.2.772", 443, true},
		{"bad port", list, "example.com", 0, false},
		{"bad host", list, "exa mple.com", 443, false},
		{"empty list", Policy{Mode: ModeProxy, Allow: []Rule{}}, "example.com", 443, false},
		{"any", Policy{Mode: ModeProxy, AllowAny: true}, "anything.test", 22, true},
		{"none", Policy{Mode: ModeNone, AllowAny: true}, "example.com", 443, false},
		{"zero mode is none", Policy{AllowAny: true}, "example.com", 443, false},
		{"host", Policy{Mode: ModeHost}, "example.com", 22, true},
	}
	for _, tt := range tests {
		got, why := tt.pol.Permits(tt.host, tt.port)
		if got != tt.want || got != (why == "") {
			t.Errorf("%s: Permits(%q, %d) = %v, %q; want %v", tt.name, tt.host, tt.port, got, why, tt.want)
		}
	}
}

func TestNarrowerThan(t *testing.T) {
	proxy := func(ss ...string) Policy { return Policy{Mode: ModeProxy, Allow: rules(t, ss...)} }
	anyP := Policy{Mode: ModeProxy, AllowAny: true}
	host, none := Policy{Mode: ModeHost}, Policy{Mode: ModeNone}
	tests := []struct {
		name          string
		child, parent Policy
		want          bool
		why           string
	}{
		{"none under none", none, none, true, ""},
		{"none under proxy", none, proxy(), true, ""},
		{"host under host", host, host, true, ""},
		{"host under proxy any", host, anyP, false, "mode host"},
		{"proxy under none", proxy("a.test"), none, false, "mode proxy"},
		{"proxy under host", anyP, host, true, ""},
		{"any under any", anyP, anyP, true, ""},
		{"any under list", anyP, proxy("a.test"), false, "omitted allow list"},
		{"list under any", proxy("a.test", "*.b.test:22"), anyP, true, ""},
		{"same", proxy("a.test"), proxy("a.test"), true, ""},
		{"port within default", proxy("a.test:443"), proxy("a.test"), true, ""},
		{"other port", proxy("a.test:22"), proxy("a.test"), false, `"a.test:22"`},
		{"default from two ports", proxy("a.test"), proxy("a.test:80", "a.test:443"), true, ""},
		{"default needs both", proxy("a.test"), proxy("a.test:443"), false, `"a.test"`},
		{"exact under wildcard", proxy("x.a.test"), proxy("*.a.test"), true, ""},
		{"apex not under wildcard", proxy("a.test"), proxy("*.a.test"), false, `"a.test"`},
		{"wildcard under wider", proxy("*.x.a.test"), proxy("*.a.test"), true, ""},
		{"wildcard under same", proxy("*.a.test"), proxy("*.a.test"), true, ""},
		{"wildcard not under exact", proxy("*.a.test"), proxy("a.test", "x.a.test"), false, `"*.a.test"`},
		{"wider wildcard", proxy("*.test"), proxy("*.a.test"), false, `"*.test"`},
		{"empty under empty", proxy(), proxy(), true, ""},
		{"unknown child mode", Policy{Mode: "bridge"}, host, false, "bridge"},
		{"unknown parent mode", none, Policy{Mode: "bridge"}, false, "bridge"},
		{"one bad entry named", proxy("a.test", "evil.test"), proxy("a.test"), false, `"evil.test"`},
	}
	for _, tt := range tests {
		ok, why := tt.child.NarrowerThan(tt.parent)
		if ok != tt.want || !strings.Contains(why, tt.why) || ok != (why == "") {
			t.Errorf("%s: NarrowerThan = %v, %q; want %v, containing %q", tt.name, ok, why, tt.want, tt.why)
		}
	}
}

// TestPolicyJSON: a policy's JSON is the plan's "network" block, rules as
// strings, and reads back as the same policy.
func TestPolicyJSON(t *testing.T) {
	tests := []struct {
		in   Policy
		want string
	}{
		{Policy{Mode: ModeProxy, Allow: rules(t, "*.A.test:443", "b.test", "[::1]:8080")},
			`{"mode":"proxy","allow":["*.a.test:443","b.test","[::1]:8080"],"allow_any":false}`},
		{Policy{Mode: ModeProxy, Allow: []Rule{}, AllowAny: true}, `{"mode":"proxy","allow":[],"allow_any":true}`},
		{Policy{Mode: ModeHost, Allow: []Rule{}, ConnectPorts: []uint16{443}, BindPorts: []uint16{8080}},
			`{"mode":"host","allow":[],"allow_any":false,"connect_ports":[443],"bind_ports":[8080]}`},
		{Policy{Mode: ModeNone, Allow: []Rule{}}, `{"mode":"none","allow":[],"allow_any":false}`},
		{Policy{}, `{"mode":"","allow":null,"allow_any":false}`},
	}
	for _, tt := range tests {
		out, err := json.Marshal(tt.in)
		if err != nil || string(out) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.in, out, err, tt.want)
			continue
		}
		var back Policy
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, tt.in) {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", out, back, err, tt.in)
		}
	}
}

// TestPolicyJSONRefuses: decoding parses every rule, so a policy read from
// JSON never holds an entry ParseRule refuses.
func TestPolicyJSONRefuses(t *testing.T) {
	for _, in := range []string{
		`{"mode":"proxy","allow":["*"]}`, `{"mode":"proxy","allow":["a.test:0"]}`, `{"mode":"proxy","allow":"a.test"}`,
		`{"mode":"proxy","allow":[1]}`, `{"mode":1}`, `[]`, `{"connect_ports":[70000]}`,
	} {
		var p Policy
		if err := json.Unmarshal([]byte(in), &p); err == nil {
			t.Errorf("Unmarshal(%s) = %+v; want an error", in, p)
		}
	}
}
