package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestMinPids: a process limit below what acbox's own processes in the
// sandbox need is refused before the launch, naming the minimum. Below it
// the native helper failed with "fork/exec: resource temporarily
// unavailable" (126) or Go's "failed to create new OS thread", and under
// docker the in-container init crashed after the member had exited 0,
// with a Go stack trace and status 2 in place of the member's.
func TestMinPids(t *testing.T) {
	for _, n := range []int{1, 2, 8, MinPids - 1} {
		_, err := resolveLimits(LimitsSpec{Pids: n})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "limits.pids") || !strings.Contains(err.Error(), "at least 32") {
			t.Errorf("pids %d: %v, want a refusal naming limits.pids and the minimum", n, err)
		}
	}
	if l, err := resolveLimits(LimitsSpec{Pids: MinPids}); err != nil || l.Pids != MinPids {
		t.Errorf("pids 32: %+v, %v", l, err)
	}
}
