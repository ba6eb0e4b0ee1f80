//go:build integration

package probe

import (
	"os"
	"testing"
)

// TestAttackScenarios runs the lifecycle scenarios of the 2026-12-01
// attacks (a terminal handed to the member; root-only files in /etc) with
// the binary in ACBOX_BIN, so that an older binary can be shown to fail
// them, on the native backend, as the caller.
func TestAttackScenarios(t *testing.T) {
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
	for _, l := range []Line{r.terminalKept(), r.etcRootOnly()} {
		if l.Result != Pass {
			t.Errorf("%s", l)
		} else {
			t.Logf("%s", l)
		}
	}
}
