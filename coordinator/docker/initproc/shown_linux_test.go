package initproc

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExecDetailQuotesNames: the init's words about a command it could
// not execute (relayed to the parent, or printed when it cannot be told)
// name the path and PATH with policy.Quote: in a nested launch a member
// chose them (policy's shown_test.go has the whole list of names).
func TestExecDetailQuotesNames(t *testing.T) {
	for _, n := range []string{"/w/x\r\x1b[2Kacbox: ok\x1b[8m", "/w/x\ny", "/w/\u202egnp", "/w/\x9b"} {
		details := []string{
			execDetail(n, policy.ExecDenied, syscall.EACCES, nil),
			execDetail(n, policy.ExecNotFound, syscall.ENOENT, nil),
			execDetail("", policy.ExecNotFound, exec.ErrNotFound, []string{"PATH=" + n}),
		}
		for _, d := range details {
			if !policy.Printable(d) {
				t.Errorf("%q: detail %q holds raw bytes", n, d)
			}
			e := &policy.ExecError{Command: n, Class: policy.ExecNotFound, Detail: d}
			if !policy.Printable(e.Error()) {
				t.Errorf("%q: %q holds raw bytes", n, e.Error())
			}
		}
	}
}
