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
