package probe

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// fastOpenProbe: sendto or sendmsg with MSG_FASTOPEN connects an unconnected
// TCP socket without connect(2), so Landlock's connect rule never sees the
// address; seccomp refuses the flag (coordinator/seccomp/fastopen.go). The
// target is the runner's TCP listener, on a port the sandbox may not
// connect to. A host whose net.ipv4.tcp_fastopen lacks the client bit says
// EOPNOTSUPP by itself; the seccomp kernel tests tell the two apart.
func fastOpenProbe() Probe {
	return Probe{ID: "net.host-fastopen-unlisted", Category: Network, HostNet: true,
		Source: "attack report, tenth session (repro-1: TCP Fast Open past Landlock's connect rule)",
		Expect: "--net host: sendto and sendmsg with MSG_FASTOPEN to the runner's listener on an unlisted port fail with EOPNOTSUPP; connect with TCP_FASTOPEN_CONNECT fails with EACCES",
		Run:    hostFastOpen}
}

func hostFastOpen(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	to := &unix.SockaddrInet4{Port: e.TCPPort, Addr: [4]byte{127, 0, 0, 1}}
	msg := []byte("GET / HTTP/1.0\r\n\r\n")
	var outs []Outcome
	for _, how := range []string{"sendto", "sendmsg"} {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return failf("socket: %s", short(err))
		}
		if how == "sendto" {
			err = unix.Sendto(fd, msg, unix.MSG_FASTOPEN, to)
		} else {
			_, err = unix.SendmsgN(fd, msg, nil, to, unix.MSG_FASTOPEN)
		}
		unix.Close(fd)
		op := fmt.Sprintf("%s(MSG_FASTOPEN) to 127.0.0.1:%d (unlisted)", how, e.TCPPort)
		outs = append(outs, expectErrno(op, err, unix.EOPNOTSUPP))
	}
	return worst(append(outs, fastOpenConnect(to))...)
}

// fastOpenConnect: TCP_FASTOPEN_CONNECT stays allowed because its connect(2)
// meets Landlock's rule (the SYN, with data, waits for the first write).
func fastOpenConnect(to *unix.SockaddrInet4) Outcome {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return failf("socket: %s", short(err))
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1); err != nil {
		return skipf("TCP_FASTOPEN_CONNECT: %s", short(err))
	}
	err = unix.Connect(fd, to)
	return expectErrno(fmt.Sprintf("connect with TCP_FASTOPEN_CONNECT to 127.0.0.1:%d (unlisted)", to.Port), err, unix.EACCES)
}
