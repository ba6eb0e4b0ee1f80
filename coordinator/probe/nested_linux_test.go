//go:build integration

package probe

import "testing"

// TestNestedProbes runs the nested-launch scenarios of the escape suite
// (life.nested-unseen, life.nested-wider): an older binary shows them
// failing (a --cwd through a link into a hidden directory, a docker child
// of a native requester).
func TestNestedProbes(t *testing.T) {
	runScenarios(t, func(r *Runner) []Line { return []Line{r.nestedUnseen(), r.nestedWider()} })
}
