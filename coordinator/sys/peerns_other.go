//go:build !linux

package sys

// NSID names a namespace (Linux only).
type NSID struct{ Dev, Ino uint64 }

// PidNSOf is unsupported here.
func PidNSOf(pid int) (NSID, error) { return NSID{}, ErrUnsupported }

// PeerInPidNS is unsupported here.
func PeerInPidNS(fd int, ns NSID) (bool, error) { return false, ErrUnsupported }

// PidNSOfPidfd is unsupported here.
func PidNSOfPidfd(pid, pidfd int) (NSID, error) { return NSID{}, ErrUnsupported }
