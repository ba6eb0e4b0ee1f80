//go:build !linux

package probe

import (
	"errors"
	"fmt"

	"github.com/acbox/acbox/coordinator/policy"
)

// Off Linux the escape suite builds (so that acbox builds and vets on
// macOS) and refuses to run: its probes, fixture and oracles use Linux
// interfaces only, and no backend can sandbox there.

var errNeedsLinux = fmt.Errorf("%w: the escape suite needs Linux: %w", policy.ErrCannotSandbox, errors.ErrUnsupported)

// Fixture is empty here: NewFixture refuses.
type Fixture struct{ Base, Write, Read string }

// NewFixture refuses: the fixture's listeners, IPC objects and canaries are
// Linux's.
func NewFixture() (*Fixture, error) { return nil, errNeedsLinux }

// Close has nothing to remove.
func (fx *Fixture) Close() {}

// Oracles has nothing to judge.
func (fx *Fixture) Oracles() []Line { return nil }

// Snapshot records nothing here.
type Snapshot struct{}

// TakeSnapshot records nothing here.
func TakeSnapshot() Snapshot { return Snapshot{} }

// Leftovers says the check did not run.
func (s Snapshot) Leftovers() Line {
	return Line{ID: "life.no-leftovers", Result: Skip, Detail: "needs Linux"}
}

// The runner's scenarios refuse.
func (r *Runner) Inside() ([]Line, error)      { return nil, errNeedsLinux }
func (r *Runner) Destructive() ([]Line, error) { return nil, errNeedsLinux }
func (r *Runner) HostMode() ([]Line, error)    { return nil, errNeedsLinux }
func (r *Runner) ProxyMode() ([]Line, error)   { return nil, errNeedsLinux }
func (r *Runner) Lifecycle() []Line            { return nil }

// Run selects no mode: the modes are members of Linux sandboxes.
func (m Modes) Run() (code int, ok bool) { return 0, false }
