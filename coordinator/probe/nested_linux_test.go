//go:build integration

package probe

import (
	"os"
	"testing"
)

// TestNestedProbes runs the nested-launch scenarios of the escape suite
// (life.nested-unseen, life.nested-wider) with the binary in ACBOX_BIN as
// the launcher, on the native backend, as the caller: an older binary
// shows them failing (a --cwd through a link into a hidden directory, a
// docker child of a native requester).
func TestNestedProbes(t *testing.T) {
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
	for _, l := range []Line{r.nestedUnseen(), r.nestedWider()} {
		if l.Result != Pass {
			t.Errorf("%s", l)
		} else {
			t.Logf("%s", l)
		}
	}
}
