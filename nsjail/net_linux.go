package nsjail

import (
	"golang.org/x/sys/unix"
)

// setupNetwork brings lo up in the sandbox's network namespace. The proxy
// bridge (proxy mode) and host mode are added by the egress work.
func (s *sandbox) setupNetwork() error {
	if err := loopbackUp(); err != nil {
		return &stepError{step: "loopback up", err: err}
	}
	return nil
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
