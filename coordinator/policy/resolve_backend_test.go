package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestResolveBackend: the plan names the backend it was shaped for; "auto"
// is the launcher's to replace before resolving (the plan is never changed
// afterwards), so Resolve refuses it as a usage error.
func TestResolveBackend(t *testing.T) {
	f := newFixture(t)
	for in, want := range map[string]string{"": "native", "native": "native", "docker": "docker"} {
		p, err := Resolve(Spec{Backend: in, Command: []string{"true"}}, f.host)
		if err != nil || p.Backend != want {
			t.Errorf("backend %q: plan for %v (%v), want %q", in, p, err, want)
		}
	}
	for _, in := range []string{"auto", "nsjail"} {
		_, err := Resolve(Spec{Backend: in, Command: []string{"true"}}, f.host)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("backend %q: %v, want ErrInvalid", in, err)
		}
	}
	_, err := Resolve(Spec{Backend: "auto", Command: []string{"true"}}, f.host)
	if err == nil || !strings.Contains(err.Error(), "choose the backend before resolving") {
		t.Errorf("auto: %v, want the launcher's step named", err)
	}
}
