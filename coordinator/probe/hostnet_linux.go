package probe

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// With --net host the member shares the host's network; what still holds
// is Landlock's TCP rules (connect and bind only to the listed ports), its
// abstract-socket scope, and seccomp's refusal of Multipath TCP, which
// Landlock's rules do not cover. These probes run in a sandbox of their
// own, launched with --net host --connect-port AllowedPort --bind-port
// BindPort; the default sandbox has no network to test them with.
func hostNetProbes() []Probe {
	const src = "acbox design (Landlock ABI 4 TCP rules, ABI 6 scopes); docs/kernel-facts.md 5"
	return []Probe{
		{ID: "net.host-connect-unlisted", Category: Network, Source: src, HostNet: true,
			Expect: "--net host: connecting to the runner's listener on an unlisted port fails with EACCES", Run: hostConnectUnlisted},
		{ID: "net.host-connect-listed", Category: Network, Source: src, HostNet: true,
			Expect: "--net host: connecting to the listed port works (the rule is per port, not a blanket refusal)", Run: hostConnectListed},
		{ID: "net.host-bind", Category: Network, Source: src, HostNet: true,
			Expect: "--net host: binding the listed port works; binding another port or port 0 fails with EACCES", Run: hostBind},
		{ID: "net.host-abstract-unix", Category: Network, Source: src, HostNet: true,
			Expect: "--net host: connecting to the runner's abstract Unix socket fails with EPERM (Landlock scope)", Run: abstractUnix},
		{ID: "net.host-mptcp", Category: Network, Source: src, HostNet: true, Needs: "mptcp",
			Expect: "--net host: Multipath TCP sockets fail with EPROTONOSUPPORT (Landlock's TCP rules would not cover them)", Run: mptcp},
		fastOpenProbe(),
		listenProbe(),
		nonDumpableProbe(),
	}
}

func hostConnectUnlisted(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", e.TCPPort))
	if err == nil {
		c.Close()
		return failf("connected to 127.0.0.1:%d, which is not listed", e.TCPPort)
	}
	return expectErrno("connect 127.0.0.1:unlisted", err, unix.EACCES)
}

func hostConnectListed(e *Env) Outcome {
	if e.AllowedPort == 0 {
		return skipf("the runner named no allowed port")
	}
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", e.AllowedPort))
	if err != nil {
		return failf("the listed port %d was refused: %s", e.AllowedPort, short(err))
	}
	c.Close()
	return passf("connected to the listed port %d", e.AllowedPort)
}

func hostBind(e *Env) Outcome {
	if e.BindPort == 0 {
		return skipf("the runner named no bind port")
	}
	var outs []Outcome
	l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", e.BindPort))
	if err != nil {
		outs = append(outs, failf("the listed port %d could not be bound: %s", e.BindPort, short(err)))
	} else {
		l.Close()
		outs = append(outs, passf("bound the listed port %d", e.BindPort))
	}
	for _, port := range []int{e.BindPort + 1, 0} {
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			l.Close()
			outs = append(outs, failf("bound the unlisted port %d", port))
			continue
		}
		outs = append(outs, expectErrno(fmt.Sprintf("bind unlisted port %d", port), err, unix.EACCES))
	}
	return worst(outs...)
}

// HostMode runs the --net host probes in a sandbox of their own. The
// docker backend has no host mode: it reports them skipped.
func (r *Runner) HostMode() ([]Line, error) {
	var ids []string
	for _, p := range hostNetProbes() {
		ids = append(ids, p.ID)
	}
	if r.docker() {
		var out []Line
		for _, p := range hostNetProbes() {
			out = append(out, p.line(skipf("the docker backend runs with network none only (--net host is refused)")))
		}
		return out, nil
	}
	env := r.Fixture.Env(nil)
	host := func(s *policy.Spec) {
		s.Access.Network = policy.NetworkSpec{Mode: "host",
			ConnectPorts: []uint16{uint16(env.AllowedPort)}, BindPorts: []uint16{uint16(env.BindPort)}}
	}
	return r.run(host, Selection{Only: ids})
}
