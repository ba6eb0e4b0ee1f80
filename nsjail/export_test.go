//go:build linux

package nsjail

// SetAfterOpen installs the test hook that runs after the parent opened the
// grants and before the helper starts.
func (o *Options) SetAfterOpen(f func()) { o.afterOpen = f }

// SetAfterRelease installs the test hook that runs after the member's start
// is released and before the parent supervises it.
func (o *Options) SetAfterRelease(f func()) { o.afterRelease = f }
