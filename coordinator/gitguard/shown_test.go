package gitguard

import (
	"errors"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestFindingQuotesNames: a git check's finding names the member's
// directory and where it was moved; both are quoted (policy.Quote), so a
// directory named "\r\033[2Kacbox: exit scan: nothing to report\033[8m"
// cannot erase the warning and forge acbox's last line (an attacker's
// finding, /tmp/attack2/repro-2.sh). policy's shown_test.go has the
// whole list of names.
func TestFindingQuotesNames(t *testing.T) {
	for _, n := range []string{
		"/w/x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m/sub/.git",
		"/w/x\nacbox: nothing to report/.git",
		"/w/\u202etig./.git",
		"/w/\x9b8m/.git",
	} {
		for _, f := range []Finding{
			{Path: n, Why: "why", Aside: n + ".acbox-quarantine-1"},
			{Path: n, Why: "why", Aside: n + ".acbox-quarantine-1", Was: true},
			{Path: n, Why: "why"},
			{Path: n, Why: "why", Err: errors.New("moving it aside: permission denied")},
		} {
			if s := f.String(); !policy.Printable(s) || !strings.HasPrefix(s, `"/w/`) {
				t.Errorf("%q: %q holds raw bytes or an unquoted name", n, s)
			}
		}
	}
	if s := (Finding{Path: "/w/sub/.git", Why: "why", Aside: "/w/sub/.git.acbox-quarantine-1"}).String(); s != "/w/sub/.git appeared during the run (why); moved to /w/sub/.git.acbox-quarantine-1" {
		t.Errorf("a plain path is changed: %q", s)
	}
}
