package probe

import (
	"bytes"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// delegateMetadata runs fs.metadata-non-grant in a delegating sandbox,
// whose /.acbox holds the broker socket (a bind of a file in the caller's
// state directory) and acbox's binary: each must refuse with EROFS, and
// both must have been checked.
func (r *Runner) delegateMetadata() Line {
	const id, src = "life.delegate-binds-readonly", "acbox design (2026-12-01: chmod of the broker socket through a read-write bind)"
	const expect = "in a --delegate sandbox, fs.metadata-non-grant passes and has checked the broker socket and acbox's binary under /.acbox"
	if r.docker() {
		return life(id, expect, src, skipf("the docker backend has no nested launches"))
	}
	c := r.cliWith([]string{"--delegate"}, "--only=fs.metadata-non-grant", "--fixture="+r.Fixture.Write, "--read-grant="+r.Fixture.Read)
	var out bytes.Buffer
	c.Stdout = &out
	code, err := status(c, 30*time.Second)
	if err != nil {
		return life(id, expect, src, errorf("%v", err))
	}
	for _, l := range readLines(&out) {
		if l.ID != "fs.metadata-non-grant" {
			continue
		}
		o := Outcome{l.Result, l.Detail}
		if l.Result == Pass && !(strings.Contains(l.Detail, policy.DelegateSocket) && strings.Contains(l.Detail, policy.DelegateBin)) {
			o = failf("%s or %s was not checked: %s", policy.DelegateSocket, policy.DelegateBin, l.Detail)
		}
		return life(id, expect, src, o)
	}
	return life(id, expect, src, errorf("the probe did not report (exit %d): %s", code, strings.TrimSpace(out.String())))
}
