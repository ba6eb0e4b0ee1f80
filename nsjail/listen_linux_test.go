package nsjail

import (
	"errors"
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// The listen guard's decision on real loopback sockets, without seccomp:
// what the supervisor does with the member's socket once it holds it. The
// whole path (filter, notification, pidfd_getfd) runs in the escape suite
// (net.host-listen-unbound) and against the attack's reproducer.
func TestListenChecked(t *testing.T) {
	allowedPort, other := freeTCPPort(t), freeTCPPort(t)
	allowed := map[int]bool{allowedPort: true}
	refused := freeTCPPort(t) // nothing listens there: a connect is refused
	for _, c := range []struct {
		name string
		sock func(t *testing.T) int
		want unix.Errno
	}{
		{"unbound tcp4 (autobind)", func(t *testing.T) int { return tcpSock(t, unix.AF_INET, -1) }, unix.EACCES},
		{"unbound tcp6 (autobind)", func(t *testing.T) int { return tcpSock(t, unix.AF_INET6, -1) }, unix.EACCES},
		{"bound to the allowed port", func(t *testing.T) int { return tcpSock(t, unix.AF_INET, allowedPort) }, 0},
		{"bound to the allowed port, tcp6", func(t *testing.T) int { return tcpSock(t, unix.AF_INET6, allowedPort) }, 0},
		{"bound to another port", func(t *testing.T) int { return tcpSock(t, unix.AF_INET, other) }, unix.EACCES},
		{"unbound after a refused connect (stale port)", func(t *testing.T) int {
			s := tcpSock(t, unix.AF_INET, -1)
			err := unix.Connect(s, &unix.SockaddrInet4{Port: refused, Addr: [4]byte{127, 0, 0, 1}})
			if err == nil {
				t.Skip("something listens on the refused port")
			}
			return s
		}, unix.EACCES},
		{"udp", func(t *testing.T) int {
			s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, unix.EOPNOTSUPP},
		{"unix, bound", func(t *testing.T) int {
			s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Bind(s, &unix.SockaddrUnix{Name: t.TempDir() + "/s"}); err != nil {
				t.Fatal(err)
			}
			return s
		}, 0},
		{"netlink", func(t *testing.T) int {
			s, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
			if err != nil {
				t.Skipf("netlink socket: %v", err)
			}
			return s
		}, unix.EOPNOTSUPP},
		{"vsock, bound (a family the guard does not check)", func(t *testing.T) int {
			s, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Skipf("vsock socket: %v", err)
			}
			if err := unix.Bind(s, &unix.SockaddrVM{CID: unix.VMADDR_CID_ANY, Port: unix.VMADDR_PORT_ANY}); err != nil {
				unix.Close(s)
				t.Skipf("vsock bind: %v", err)
			}
			return s
		}, unix.EOPNOTSUPP},
		{"a pipe", func(t *testing.T) int {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Close(p[1]) })
			return p[0]
		}, unix.ENOTSOCK},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.sock(t)
			defer unix.Close(s)
			if got := listenChecked(s, 4, allowed); got != c.want {
				t.Fatalf("listenChecked: %v, want %v", got, c.want)
			}
			acc, err := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
			if listening := err == nil && acc == 1; listening != (c.want == 0) {
				t.Errorf("listening %v after answer %v", listening, c.want)
			}
		})
	}
}

func tcpSock(t *testing.T, family, port int) int {
	t.Helper()
	s, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skip("no socket of this family:", err)
	}
	unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if port >= 0 {
		var sa unix.Sockaddr = &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
		if family == unix.AF_INET6 {
			sa = &unix.SockaddrInet6{Port: port, Addr: [16]byte{15: 1}}
		}
		if err := unix.Bind(s, sa); err != nil {
			unix.Close(s)
			t.Skip("bind:", err)
		}
	}
	return s
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Fail closed: a kernel without the guard's calls leaves a shortfall that
// refuses the launch, naming the guard, the cause and the remedy; with
// --best-effort the member runs and the guard is not loaded.
func TestListenGuardRefusesWithoutKernelSupport(t *testing.T) {
	missing := func() error { return errors.New("pidfd_getfd (Linux 5.6): function not implemented") }
	rep := &policy.Report{}
	listenGuardControl(rep, missing)
	err := verify(&policy.Plan{}, rep)
	if err == nil {
		t.Fatal("launch not refused")
	}
	for _, want := range []string{"listen_guard", "pidfd_getfd", "--net none or proxy", "--best-effort"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	if verify(&policy.Plan{BestEffort: true}, rep) != nil {
		t.Error("--best-effort refused too")
	}
	if fd, err := loadListenGuard(rep); fd != -1 || err != nil {
		t.Errorf("guard loaded without support: %d %v", fd, err)
	}
	ok := &policy.Report{}
	listenGuardControl(ok, func() error { return nil })
	if !guardEnforced(ok) || verify(&policy.Plan{}, ok) != nil {
		t.Error("with support: not enforced, or refused")
	}
}
