package nsjail

import (
	"bufio"
	"strings"
	"testing"
)

// TestReadConfigRefusesUnknownFields: pid 1 refuses a config field it does
// not know (a parent of another build), rather than run without it.
func TestReadConfigRefusesUnknownFields(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{`{"id":"a","plan":{"command":["true"]}}`, true},
		{`{"id":"a","plan":{"command":["true"]},"cgroup_leaves":[5],"cgroup_id":"a"}`, true},
		{`{"id":"a","plan":{"command":["true"]},"cgroup_leafs":[5]}`, false},
		{`{"id":"a","plan":{"command":["true"],"new_control":true}}`, false},
		{`{"id":"a"}`, false},
	} {
		_, err := readConfig(bufio.NewReader(strings.NewReader(tc.line + "\n")))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.line, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "%!") {
			t.Errorf("%s: a malformed message: %s", tc.line, err)
		}
		if err != nil && strings.Contains(tc.line, "cgroup_leafs") && !strings.Contains(err.Error(), "same build") {
			t.Errorf("%s: %s; want the remedy (the same build)", tc.line, err)
		}
	}
}
