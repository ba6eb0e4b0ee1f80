//go:build integration

package probe

import (
	"os"
	"testing"
)

// runScenarios runs the scenarios lines returns with the binary in
// ACBOX_BIN as the launcher (so that an older binary can be shown to fail
// them), on the native backend, as the caller; each must pass.
func runScenarios(t *testing.T, lines func(r *Runner) []Line) {
	t.Helper()
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	fx, err := NewFixture()
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	r := &Runner{Exe: bin, Fixture: fx, Stderr: os.Stderr}
	for _, l := range lines(r) {
		if l.Result != Pass {
			t.Errorf("%s", l)
		} else {
			t.Logf("%s", l)
		}
	}
}
