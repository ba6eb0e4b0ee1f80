//go:build !linux

package policy

// writable is assumed off Linux, where acbox cannot sandbox anyway; the
// registry's own checks still refuse an unusable directory.
func writable(string) bool { return true }

// privateDir is not checked off Linux (see writable).
func privateDir(string) error { return nil }
