//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package egress

import "io"

// waitReadable is a no-op here: the copy loop holds its buffer while idle.
func waitReadable(io.Reader) {}
