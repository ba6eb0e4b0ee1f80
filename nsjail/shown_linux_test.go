package nsjail

import (
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestMessagesQuoteNames: the native backend's errors that name a grant,
// a mount or the member's command (a nested launch's, chosen by a member)
// name it with policy.Quote (policy's shown_test.go has the whole list).
func TestMessagesQuoteNames(t *testing.T) {
	for _, n := range []string{"/w/x\r\x1b[2Kacbox: ok\x1b[8m", "/w/x\ny", "/w/\u202egnp", "/w/\x9b"} {
		msgs := map[string]string{
			"mount":       (&MountError{Op: "open_tree", Source: n, Target: n, Err: syscall.EPERM}).Error(),
			"exec denied": execFailed(n, n, syscall.EACCES).Error(),
			"exec loader": execFailed(n, n, syscall.ENOENT).Error(),
			"exec other":  execFailed(n, n, syscall.ENOMEM).Error(),
		}
		for what, m := range msgs {
			if !policy.Printable(m) || strings.Contains(m, "\n") {
				t.Errorf("%s: %q holds raw bytes of %q", what, m, n)
			}
		}
	}
	if got := (&MountError{Op: "open_tree", Source: "/home/u/proj", Err: syscall.EPERM}).Error(); got != "open_tree src=/home/u/proj: operation not permitted" {
		t.Errorf("a plain path is changed: %q", got)
	}
}
