package main

import "testing"

// TestPsLabelsUnambiguous: acbox ps joins labels with ',', so a value
// holding a comma (allowed: it is printable) showed as two labels:
// --label 'k=a,owner=root' listed "k=a,owner=root". Such values are
// quoted; plain ones are shown as they are.
func TestPsLabelsUnambiguous(t *testing.T) {
	cases := []struct {
		in   map[string]string
		want string
	}{
		{nil, "-"},
		{map[string]string{"team": "t1", "member": "m1"}, "member=m1,team=t1"},
		{map[string]string{"k": "a,owner=root"}, `k="a,owner=root"`},
		{map[string]string{"k": `say "hi"`}, `k="say \"hi\""`},
		{map[string]string{"k": ""}, "k="},
		{map[string]string{"k": "a  b"}, `k="a  b"`},
		{map[string]string{"k": "é"}, "k=é"},
	}
	for _, c := range cases {
		if got := labels(c.in); got != c.want {
			t.Errorf("labels(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestPsAccessQuotesControl: a nested sandbox's grant path is named by a
// member; with a newline and an escape sequence in it, acbox ps printed a
// forged row and sent OSC 0 to the terminal of whoever ran it (an
// attacker's finding). Such paths are quoted, every control and format
// character escaped; plain paths are shown as they are.
func TestPsAccessQuotesControl(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`{"read":["/a"],"write":["/w"],"network":{"mode":"none"}}`, "rw:/w ro:/a net:none"},
		{`{"write":["/w/x\nsbx-1 native 1 - 1s 1MiB/1 rw:/ net:host -"],"network":{"mode":"none"}}`,
			`rw:"/w/x\nsbx-1 native 1 - 1s 1MiB/1 rw:/ net:host -" net:none`},
		{`{"write":["/w/\u001b]0;pwned\u0007"],"network":{"mode":"none"}}`, `rw:"/w/\x1b]0;pwned\a" net:none`},
		{`{"write":["/w/\u202egnp.exe"],"network":{"mode":"none"}}`, `rw:"/w/\u202egnp.exe" net:none`},
		{`{"write":["/w/a,b"],"network":{"mode":"none"}}`, `rw:"/w/a,b" net:none`},
		{`{"write":["/w/é"],"network":{"mode":"none"}}`, "rw:/w/é net:none"},
	}
	for _, c := range cases {
		if got := accessSummary([]byte(c.raw)); got != c.want {
			t.Errorf("accessSummary(%s) = %s, want %s", c.raw, got, c.want)
		}
	}
}
