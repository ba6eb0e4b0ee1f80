package pin

import (
	"fmt"

	"github.com/acbox/acbox/coordinator/policy"
)

// MatchGrant requires that a grant opened with Hold is the directory the
// plan was made for (when the plan recorded one): a directory swapped in
// between planning and launching is refused, not mounted.
func MatchGrant(g policy.Grant, dev, ino uint64) error {
	if g.Ino == 0 || (dev == g.Dev && ino == g.Ino) {
		return nil
	}
	return &policy.RefusedError{Subject: g.Path, Why: fmt.Sprintf("is not the directory that was planned (dev/ino %d/%d, planned %d/%d): it was replaced", dev, ino, g.Dev, g.Ino), Instead: "retry; if it keeps changing, something is swapping it"}
}
