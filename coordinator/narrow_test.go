package coordinator

import (
	"strings"
	"testing"
)

func TestNarrower(t *testing.T) {
	parent := &Plan{
		Grants:  []Grant{{Path: "/repo", Write: true}, {Path: "/docs"}},
		Mounts:  []Mount{{Source: "/opt/pi", Target: "/opt/pi", Readonly: true}},
		Network: Network{Mode: "proxy", Allow: []string{"api.example.com", "*.example.org:8443"}},
	}
	cases := []struct {
		name  string
		child Plan
		want  string
	}{
		{"same", Plan{Grants: parent.Grants, Network: parent.Network}, ""},
		{"sub write", Plan{Grants: []Grant{{Path: "/repo/sub", Write: true}}, Network: Network{Mode: "none"}}, ""},
		{"read inside write", Plan{Grants: []Grant{{Path: "/repo/x"}}, Network: Network{Mode: "none"}}, ""},
		{"read inside read", Plan{Grants: []Grant{{Path: "/docs/a"}}, Network: Network{Mode: "none"}}, ""},
		{"write inside read", Plan{Grants: []Grant{{Path: "/docs/a", Write: true}}, Network: Network{Mode: "none"}}, "/docs/a: a nested write grant"},
		{"outside", Plan{Grants: []Grant{{Path: "/etc"}}, Network: Network{Mode: "none"}}, "/etc: a nested read grant"},
		{"prefix trick", Plan{Grants: []Grant{{Path: "/repository"}}, Network: Network{Mode: "none"}}, "/repository"},
		{"remount ro", Plan{Mounts: []Mount{{Source: "/opt/pi", Target: "/x", Readonly: true}}, Network: Network{Mode: "none"}}, ""},
		{"remount rw", Plan{Mounts: []Mount{{Source: "/opt/pi", Target: "/x"}}, Network: Network{Mode: "none"}}, "/opt/pi"},
		{"mount foreign", Plan{Mounts: []Mount{{Source: "/var/run/docker.sock", Target: "/s"}}, Network: Network{Mode: "none"}}, "docker.sock"},
		{"host net", Plan{Network: Network{Mode: "host"}}, "network"},
		{"any public", Plan{Network: Network{Mode: "proxy", AllowAny: true}}, "network"},
		{"other host", Plan{Network: Network{Mode: "proxy", Allow: []string{"evil.example"}}}, "evil.example"},
		{"subset hosts", Plan{Network: Network{Mode: "proxy", Allow: []string{"a.example.org:8443"}}}, ""},
		{"best effort", Plan{BestEffort: true, Network: Network{Mode: "none"}}, "best_effort"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Narrower(&c.child, parent)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}
