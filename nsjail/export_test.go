//go:build linux

package nsjail

import "time"

// SetAfterOpen installs the test hook that runs after the parent opened the
// grants and before the helper starts.
func (o *Options) SetAfterOpen(f func()) { o.afterOpen = f }

// SetAfterRelease installs the test hook that runs after the member's start
// is released and before the parent supervises it.
func (o *Options) SetAfterRelease(f func()) { o.afterRelease = f }

// SetBeforeMaps installs the test hook that runs after pid 1's exec and
// before the parent writes its id maps, with pid 1's host pid.
func (o *Options) SetBeforeMaps(f func(pid int)) { o.beforeMaps = f }

// SetSetupDeadline shortens how long the parent waits for pid 1's ready
// message; it returns the previous value.
func SetSetupDeadline(d time.Duration) time.Duration {
	old := setupDeadline
	setupDeadline = d
	return old
}
