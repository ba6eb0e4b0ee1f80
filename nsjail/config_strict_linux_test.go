package nsjail

import (
	"bufio"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
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

// TestReadyNeedsEveryLeafEntered: a ready message that entered fewer v1
// leaves than the parent passed (a pid 1 of an older build ignores them)
// fails the launch instead of reporting limits that do not hold.
func TestReadyNeedsEveryLeafEntered(t *testing.T) {
	for _, entered := range []int{0, 1, 3} {
		l := &launch{leafFDs: []int{5, 6}, opt: Options{Exe: "/old/acbox"}}
		err := l.handle(helperMsg{Kind: "ready", Entered: entered}, &backend.Outcome{})
		if err == nil || policy.ExitCode(err) != policy.ExitCannotSandbox || !strings.Contains(err.Error(), "not the build of this acbox") {
			t.Errorf("entered %d of 2: %v", entered, err)
		}
	}
}
