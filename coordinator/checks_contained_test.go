package coordinator

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/policy"
)

type panicGit struct{}

func (panicGit) Quarantine(io.Writer) ([]string, error) {
	b := make([]byte, 74)
	lo := len(b) + 2
	return []string{string(b[lo:])}, nil // what a crafted index did to gitguard's parser
}

type countScan struct{ ran *bool }

func (c countScan) Finish(io.Writer, []string) (*exitscan.ExitScan, error) {
	*c.ran = true
	return nil, nil
}

// TestAfterRunContainsAPanic: a check that panics is that check's failure
// (exit 124) and the exit scan after it still runs.
func TestAfterRunContainsAPanic(t *testing.T) {
	ran := false
	_, _, err := afterRun(io.Discard, nil, panicGit{}, countScan{&ran})
	if !errors.Is(err, policy.ErrUnchecked) || !strings.Contains(err.Error(), "git check failed inside acbox") {
		t.Errorf("err = %v, want the git check's failure as ErrUnchecked", err)
	}
	if !ran {
		t.Error("the exit scan did not run after the git check's fault")
	}
}
