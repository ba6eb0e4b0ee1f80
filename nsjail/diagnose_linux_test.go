package nsjail

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestExplainStartKeepsCauses: the explained error is ErrCannotSandbox and
// keeps the errno, and its text is cause; remedy, as `acbox status` printed
// it before the two were reported apart.
func TestExplainStartKeepsCauses(t *testing.T) {
	for _, errno := range []unix.Errno{unix.ENOSPC, unix.EPERM, unix.EINVAL, unix.ENOMEM} {
		cause := &os.PathError{Op: "fork/exec", Path: "/proc/self/exe", Err: errno}
		err := explainStart(cause)
		if !errors.Is(err, policy.ErrCannotSandbox) || !errors.Is(err, errno) {
			t.Errorf("%v: %v is not ErrCannotSandbox and the errno", errno, err)
		}
		var se *startError
		if !errors.As(err, &se) {
			t.Fatalf("%v: %T, want *startError", errno, err)
		}
		want := fmt.Sprintf("%v: %s: %v; %s", policy.ErrCannotSandbox, se.why, cause, se.remedy)
		if err.Error() != want || !strings.HasPrefix(want, se.cause()+"; ") {
			t.Errorf("%v: %q, want %q", errno, err, want)
		}
	}
}
