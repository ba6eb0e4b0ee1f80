//go:build !linux

package docker

// hostRootOnlyProc: off Linux there is no host /proc to list. Launch never
// gets this far there (see hostSupport); should it, nothing is added.
func hostRootOnlyProc() ([]string, error) { return nil, nil }
