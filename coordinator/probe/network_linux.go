package probe

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func networkProbes() []Probe {
	return []Probe{
		{ID: "net.only-lo", Category: Network, Source: "bubblewrap --unshare-net",
			Expect: "the only network interface is lo", Run: onlyLo},
		{ID: "net.tcp-host-loopback", Category: Network, Source: "sandbox-runtime (localhost access)",
			Expect: "connecting to the runner's listener on 127.0.0.1 and ::1 fails (the oracle also counts accepts)", Run: tcpHostLoopback},
		{ID: "net.udp-host-loopback", Category: Network, Source: "sandbox-runtime",
			Expect: "a UDP datagram to the runner's 127.0.0.1 port stays in the sandbox (judged by the oracle)", Run: udpHostLoopback},
		{ID: "net.no-route", Category: Network, Source: "acbox design",
			Expect: "connecting a UDP socket (which sends nothing) to 192.0.2.1 and 2001:db8::1 fails: no route", Run: noRoute},
		{ID: "net.dns", Category: Network, Source: "Codex network-disabled tests",
			Expect: "resolving example.com fails (checked only once no interface but lo is seen, so no packet can leave)", Run: dnsFails},
		{ID: "net.abstract-unix", Category: Network, Source: "abstract sockets belong to the network namespace and are reachable in host mode; Landlock scoping (ABI 6)",
			Expect: "connecting to the runner's abstract Unix socket fails", Run: abstractUnix},
		{ID: "net.host-unix-socket", Category: Network, Source: "acbox design (honest ceiling: sockets in grants)",
			Expect: "the runner's Unix socket outside every grant cannot be connected to", Run: hostUnixSocket},
		{ID: "net.proc-net-tcp", Category: Network, Source: "acbox design",
			Expect: "/proc/net/tcp does not list the runner's listening port", Run: procNetTCP},
		{ID: "net.raw-socket", Category: Network, Source: "CVE-2020-14386 (AF_PACKET)",
			Expect: "raw IPv4 and AF_PACKET sockets cannot be created", Run: rawSockets},
		{ID: "net.netlink-non-route", Category: Network, Source: "docs/kernel-facts.md 6",
			Expect: "netlink SOCK_DIAG, AUDIT and KOBJECT_UEVENT sockets fail with EPROTONOSUPPORT; NETLINK_ROUTE works", Run: netlinkNonRoute},
		{ID: "net.mptcp", Category: Network, Source: "docs/kernel-facts.md 5 (Landlock does not cover MPTCP)", Needs: "mptcp",
			Expect: "socket(AF_INET/AF_INET6, SOCK_STREAM, IPPROTO_MPTCP) fails with EPROTONOSUPPORT", Run: mptcp},
		{ID: "net.socket-families", Category: Network, Source: "Docker seccomp profile; CVE-2021-26708 (vsock), CVE-2016-8655",
			Expect: "sockets of families other than unix, inet, inet6, netlink fail with EAFNOSUPPORT", Run: otherFamilies},
	}
}

func onlyLo(*Env) Outcome {
	ifs, err := net.Interfaces()
	if err != nil {
		return errorf("net.Interfaces: %v", err)
	}
	var names []string
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		return failf("interfaces: %s", strings.Join(names, " "))
	}
	return passf("interfaces: lo")
}

func dial(network, addr string) error {
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err == nil {
		c.Close()
	}
	return err
}

func tcpHostLoopback(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	return worst(
		expectDenied("connect 127.0.0.1", dial("tcp4", fmt.Sprintf("127.0.0.1:%d", e.TCPPort))),
		expectDenied("connect [::1]", dial("tcp6", fmt.Sprintf("[::1]:%d", e.TCPPort))))
}

func udpHostLoopback(e *Env) Outcome {
	if e.UDPPort == 0 {
		return skipf("the runner named no UDP listener")
	}
	c, err := net.Dial("udp4", fmt.Sprintf("127.0.0.1:%d", e.UDPPort))
	if err != nil {
		return passf("dial: %s", short(err))
	}
	defer c.Close()
	_, err = c.Write([]byte(e.Canary))
	if err != nil {
		return passf("send: %s", short(err))
	}
	return infof("sent into the sandbox's own lo; joined with oracle.udp-received, which says whether it arrived outside")
}

func noRoute(*Env) Outcome {
	var outs []Outcome
	for _, a := range []string{"192.0.2.1:9", "[2001:db8::1]:9"} {
		c, err := net.Dial("udp", a)
		if err == nil {
			c.Close()
		}
		outs = append(outs, expectErrno("connect udp "+a, err, unix.ENETUNREACH, unix.EADDRNOTAVAIL))
	}
	return worst(outs...)
}

func dnsFails(e *Env) Outcome {
	if o := onlyLo(e); o.Result != Pass {
		return failf("not attempted, a query could leave the sandbox: %s", o.Detail)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, "example.com")
	if err != nil {
		return passf("lookup example.com: %v", err)
	}
	return failf("example.com resolved to %v", addrs)
}

func abstractUnix(e *Env) Outcome {
	if e.Abstract == "" {
		return skipf("the runner named no abstract socket")
	}
	return expectDenied("connect @"+e.Abstract, dial("unix", "@"+e.Abstract))
}

func hostUnixSocket(e *Env) Outcome {
	if e.UnixSocket == "" {
		return skipf("the runner named no socket")
	}
	err := dial("unix", e.UnixSocket)
	if errnoOf(err) == unix.ENOENT {
		return passf("%s: ENOENT (not in the sandbox's view; it exists on the host)", e.UnixSocket)
	}
	return expectDenied("connect "+e.UnixSocket, err)
}

func procNetTCP(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return passf("/proc/net/tcp: %s", short(err))
	}
	if strings.Contains(string(b), fmt.Sprintf(":%04X ", e.TCPPort)) {
		return failf("/proc/net/tcp lists port %d", e.TCPPort)
	}
	return passf("port %d not listed", e.TCPPort)
}

func socket(fam, typ, proto int) error {
	fd, err := unix.Socket(fam, typ|unix.SOCK_CLOEXEC, proto)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func rawSockets(*Env) Outcome {
	return worst(
		expectDenied("socket(AF_INET, SOCK_RAW, ICMP)", socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)),
		expectDenied("socket(AF_PACKET, SOCK_RAW)", socket(unix.AF_PACKET, unix.SOCK_RAW, 0x0300)),
		expectDenied("socket(AF_PACKET, SOCK_DGRAM)", socket(unix.AF_PACKET, unix.SOCK_DGRAM, 0x0300)))
}

func netlinkNonRoute(*Env) Outcome {
	outs := []Outcome{}
	for _, p := range []struct {
		n     string
		proto int
	}{{"SOCK_DIAG", unix.NETLINK_SOCK_DIAG}, {"AUDIT", unix.NETLINK_AUDIT}, {"KOBJECT_UEVENT", unix.NETLINK_KOBJECT_UEVENT},
		{"NETFILTER", unix.NETLINK_NETFILTER}, {"XFRM", unix.NETLINK_XFRM}} {
		outs = append(outs, expectErrno("netlink "+p.n, socket(unix.AF_NETLINK, unix.SOCK_RAW, p.proto), unix.EPROTONOSUPPORT))
	}
	if err := socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE); err != nil {
		outs = append(outs, failf("NETLINK_ROUTE refused too (%s): net.Interfaces and ip break", short(err)))
	}
	return worst(outs...)
}

func mptcp(*Env) Outcome {
	return worst(
		expectErrno("MPTCP inet", socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), unix.EPROTONOSUPPORT),
		expectErrno("MPTCP inet6", socket(unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), unix.EPROTONOSUPPORT))
}

// otherFamilyList are the socket families no member needs.
var otherFamilyList = []struct {
	n        string
	fam, typ int
}{{"AF_PACKET", unix.AF_PACKET, unix.SOCK_DGRAM}, {"AF_VSOCK", unix.AF_VSOCK, unix.SOCK_STREAM}, {"AF_ALG", unix.AF_ALG, unix.SOCK_SEQPACKET},
	{"AF_KEY", unix.AF_KEY, unix.SOCK_RAW}, {"AF_XDP", unix.AF_XDP, unix.SOCK_RAW}, {"AF_BLUETOOTH", unix.AF_BLUETOOTH, unix.SOCK_RAW},
	{"AF_RDS", unix.AF_RDS, unix.SOCK_SEQPACKET}, {"AF_TIPC", unix.AF_TIPC, unix.SOCK_RDM}, {"AF_CAN", unix.AF_CAN, unix.SOCK_RAW},
	{"AF_X25", unix.AF_X25, unix.SOCK_SEQPACKET}, {"AF_APPLETALK", unix.AF_APPLETALK, unix.SOCK_DGRAM}}

func otherFamilies(*Env) Outcome {
	var outs []Outcome
	for _, f := range otherFamilyList {
		outs = append(outs, expectErrno(f.n, socket(f.fam, f.typ, 0), unix.EAFNOSUPPORT))
	}
	return worst(outs...)
}
