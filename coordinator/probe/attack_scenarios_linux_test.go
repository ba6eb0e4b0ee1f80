//go:build integration

package probe

import "testing"

// TestAttackScenarios runs the lifecycle scenarios of the 2026-12-01
// attacks (a terminal handed to the member; root-only files in /etc).
func TestAttackScenarios(t *testing.T) {
	runScenarios(t, func(r *Runner) []Line { return []Line{r.terminalKept(), r.etcRootOnly()} })
}
