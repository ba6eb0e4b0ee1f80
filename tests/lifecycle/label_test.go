//go:build integration

package lifecycle

import (
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestLabels: --label KEY=VALUE (repeatable, a comma is part of the
// value) reaches the registry, and acbox ps shows it; a label with a
// control character or a bad key is refused with its reason and runs
// nothing.
func TestLabels(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		holder := r.cmd("run", "--label", "team=a,b", "--label", "ci.job/id=42", "--", "sleep", "2.43")
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		defer holder.Wait()
		es := r.waitPs(t, 1)
		if l := es[0].Labels; len(l) != 2 || l["team"] != "a,b" || l["ci.job/id"] != "42" {
			t.Errorf("registry labels %v, want team=a,b and ci.job/id=42", l)
		}
		out, _, _ := r.run(t, "ps")
		// The comma of a value would read as one more label: it is quoted.
		if !strings.Contains(out, `ci.job/id=42,team="a,b"`) {
			t.Errorf("acbox ps does not show the labels:\n%s", out)
		}
		for _, tc := range []struct{ label, want string }{
			{"k=a\nID FORGED", "control character U+000A"},
			{"k=\x1b[2Jx", "control character U+001B"},
			{"bad key=v", "label key"},
			{"novalue", "KEY=VALUE"},
		} {
			_, stderr, code := r.run(t, "run", "--label", tc.label, "--", "sh", "-c", "echo RAN")
			if code != policy.ExitCode(policy.ErrInvalid) || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "RAN") {
				t.Errorf("--label %q: exit %d, want %d and %q: %s", tc.label, code, policy.ExitCode(policy.ErrInvalid), tc.want, stderr)
			}
		}
	})
}
