package policy

import (
	"strings"
	"testing"
)

// TestNotices: each notice appears exactly when its condition holds.
func TestNotices(t *testing.T) {
	f := newFixture(t)
	h := f.host
	proj := h.Cwd
	cases := []struct {
		name string
		spec Spec
		cwd  string   // the launch directory; "" keeps the fixture's
		want []string // substrings of the one notice expected; nil: none
	}{
		{"granted launch directory", Spec{Access: Access{Write: []string{"."}}}, "", nil},
		{"launch directory not granted", Spec{}, "", []string{"the current directory " + proj + " is not granted", "runs in " + h.Home, "-w . (read-write) or -r . (read-only)"}},
		{"explicit cwd", Spec{Cwd: proj + "/docs", Access: Access{Read: []string{proj + "/docs"}}}, "", nil},
		{"launch directory that cannot be granted", Spec{}, "/", []string{"the current directory / is not granted", "-w DIR and give --cwd DIR"}},
		{"in the home directory", Spec{}, h.Home, []string{"private, empty home at " + h.Home}},
		{"pass-env set", Spec{Access: Access{Write: []string{"."}}, PassEnv: []string{"SECRET"}}, "", nil},
		{"pass-env unset", Spec{Access: Access{Write: []string{"."}}, PassEnv: []string{"NOPE"}}, "", []string{"--pass-env NOPE: NOPE is not set here"}},
		{"image with native", Spec{Access: Access{Write: []string{"."}}, Image: "img"}, "", []string{"--image img applies to the docker backend"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := h
			if c.cwd != "" {
				hc.Cwd = c.cwd
			}
			c.spec.Command = []string{"true"}
			p, err := Resolve(c.spec, hc)
			if err != nil {
				t.Fatal(err)
			}
			got := Notices(c.spec, p, hc)
			if (len(got) == 0) != (len(c.want) == 0) || len(got) > 1 {
				t.Fatalf("notices %q; want one holding %q", got, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("notice %q lacks %q", got[0], w)
				}
			}
		})
	}
}
