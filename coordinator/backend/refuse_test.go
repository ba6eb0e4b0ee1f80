package backend

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

type lacking struct{ lacks []string }

func (lacking) Name() string                                                 { return "fake" }
func (lacking) Available(context.Context) Availability                       { return Availability{} }
func (l lacking) Lacks(*policy.Plan) []string                                { return l.lacks }
func (lacking) Live(context.Context) ([]string, error)                       { return nil, nil }
func (lacking) Cleanup(context.Context, func(string) bool) ([]string, error) { return nil, nil }
func (lacking) Launch(*policy.Plan, LaunchIO) (*Outcome, error)              { return nil, nil }

// TestRefuse: a plan that lacks nothing passes; one that lacks anything is
// a policy refusal naming every lack; a plan resolved for another backend
// is one of them.
func TestRefuse(t *testing.T) {
	p := &policy.Plan{Backend: "fake"}
	if err := Refuse(lacking{}, p); err != nil {
		t.Fatalf("nothing lacking: %v", err)
	}
	err := Refuse(lacking{[]string{"view host: use native", "masks: use native"}}, p)
	if !errors.Is(err, policy.ErrRefused) || err.Error() != "view host: use native; masks: use native" {
		t.Fatalf("lacks: %v", err)
	}
	if got := OtherBackend(lacking{}, &policy.Plan{Backend: "native"}); len(got) != 1 {
		t.Errorf("a plan for another backend: %v", got)
	}
	if got := OtherBackend(lacking{}, p); got != nil {
		t.Errorf("a plan for this backend: %v", got)
	}
}

func TestNewID(t *testing.T) {
	a, b := NewID(), NewID()
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(a) || a == b {
		t.Fatalf("ids %q %q: want 12 random hex digits", a, b)
	}
}
