//go:build !linux

package policy

import "errors"

// HostMemory is not available without Linux sysinfo.
func HostMemory() (int64, error) { return 0, errors.New("reading host memory needs Linux sysinfo") }
