package probe

import (
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// The suite's digest line fails, with the check's remedy, when the check
// does, and passes on this tree.
func TestPolicyPinLine(t *testing.T) {
	drift := &policy.DigestDriftError{Reported: "aaaa", Computed: "bbbb"}
	if l := pinLine(drift); l.Result != Fail || !strings.Contains(l.Detail, "aaaa") || !strings.Contains(l.Detail, policy.DigestPinRemedy) {
		t.Errorf("a drifted digest: %+v; want a failure naming the remedy", l)
	}
	if l := PolicyPin(); l.Result != Pass || l.ID != "build.policy-digest" || l.Category != Build {
		t.Errorf("this tree: %+v", l)
	}
}
