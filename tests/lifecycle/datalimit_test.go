//go:build integration

package lifecycle

import (
	"strings"
	"testing"
)

// raiseData tries to lift the member's RLIMIT_DATA both ways a program can
// (setrlimit, and prlimit on itself) and prints what it saw, one line each.
const raiseData = `
import resource
before = resource.getrlimit(resource.RLIMIT_DATA)
print("before", before[0])
for name, call in (("setrlimit", lambda: resource.setrlimit(resource.RLIMIT_DATA, (before[1], before[1]))),
                   ("prlimit", lambda: resource.prlimit(0, resource.RLIMIT_DATA, (before[1], before[1])))):
    try:
        call(); print(name, "RAISED")
    except (ValueError, OSError) as e:
        print(name, "refused", e)
print("after", resource.getrlimit(resource.RLIMIT_DATA)[0])
`

// TestMemberCannotRaiseItsDataLimit: --memory is the member's RLIMIT_DATA,
// a soft limit under an unlimited hard one; the member's filter refuses
// setting it, so it stays at --memory (attack repro-1, 2026-12-01: the
// member raised it and wrote 700 MiB under --memory 256MiB).
func TestMemberCannotRaiseItsDataLimit(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		out, stderr, code := r.run(t, "run", "--memory", tightMemory, "--", "python3", "-c", raiseData)
		t.Logf("%s: exit %d\n%s", r.name, code, out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := "before 268435456\n"
		if !strings.HasPrefix(out, want) {
			t.Errorf("the member's RLIMIT_DATA is not --memory %s: %q", tightMemory, out)
		}
		if strings.Contains(out, "RAISED") || !strings.Contains(out, "after 268435456\n") {
			t.Errorf("the member raised its RLIMIT_DATA:\n%s", out)
		}
	})
}
