package probe

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// listenProbe: listen(2) on an unbound TCP socket binds a port the kernel
// picks, on every address, and Landlock never sees that bind; pid 1's
// listen guard refuses it (nsjail/listen_linux.go). The listed port still
// listens: net.host-bind's net.Listen goes through the same guard.
func listenProbe() Probe {
	return Probe{ID: "net.host-listen-unbound", Category: Network, HostNet: true,
		Source: "attack report, tenth session (repro-2: listen() autobind past Landlock's bind rule)",
		Expect: "--net host: listen() on an unbound TCP socket (IPv4 and IPv6) fails with EACCES instead of binding a port the kernel picks",
		Run:    hostListenUnbound}
}

func hostListenUnbound(e *Env) Outcome {
	var outs []Outcome
	for _, fam := range []struct {
		name   string
		family int
	}{{"tcp4", unix.AF_INET}, {"tcp6", unix.AF_INET6}} {
		fd, err := unix.Socket(fam.family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			outs = append(outs, skipf("%s socket: %s", fam.name, short(err)))
			continue
		}
		err = unix.Listen(fd, 1)
		op := fmt.Sprintf("listen on an unbound %s socket", fam.name)
		if err == nil {
			op += fmt.Sprintf(" (it took port %d)", boundPort(fd))
		}
		unix.Close(fd)
		outs = append(outs, expectErrno(op, err, unix.EACCES))
	}
	return worst(outs...)
}

func boundPort(fd int) int {
	switch a, _ := unix.Getsockname(fd); a := a.(type) {
	case *unix.SockaddrInet4:
		return a.Port
	case *unix.SockaddrInet6:
		return a.Port
	}
	return 0
}
