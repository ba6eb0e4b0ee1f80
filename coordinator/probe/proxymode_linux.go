package probe

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// With --net proxy the member's only way out is the bridge on
// 127.0.0.1:3128 to acbox's egress proxy outside. These probes run in a
// sandbox of their own with the proxy on and no allowlist (any public
// destination), so that the address checks, not the allowlist, decide.
// They never name a host: with no allowlist a name would be resolved,
// and the suite resolves no real names. Every destination is a form of
// this host (loopback, unspecified, its own addresses), so nothing could
// leave the machine even if the proxy were wrong; the runner's counted
// listener is the target, and its oracle shows whether anything reached it.
func proxyProbes() []Probe {
	const src = "acbox design (egress proxy); sandbox-runtime and Codex proxy tests; SSRF to loopback"
	return []Probe{
		{ID: "proxy.loopback-forms", Category: Network, Source: src, Proxy: true,
			Expect: "CONNECT to the runner's listener as 127.0.0.1, 127.1, 2130706433, 0x7f.1, 0177.0.0.1, [::1] and [::ffff:127.0.0.1] is refused with 403", Run: proxyLoopbackForms},
		{ID: "proxy.host-addresses", Category: Network, Source: src, Proxy: true,
			Expect: "CONNECT to the runner's listener on each of the host's own addresses, and to 0.0.0.0, is refused with 403", Run: proxyHostAddresses},
		{ID: "proxy.malformed", Category: Network, Source: "request smuggling (CL.TE); Host header mismatch; RFC 9112",
			Proxy: true, Expect: "origin-form, Content-Length with Transfer-Encoding, a Host header that disagrees, and userinfo are refused with 400 (before any address check)",
			Run: proxyMalformed},
		{ID: "proxy.direct", Category: Network, Source: src, Proxy: true,
			Expect: "a direct connection to the host's own address, bypassing the proxy, fails", Run: proxyDirect},
		{ID: "proxy.pass-descriptor", Category: Network, Source: "acbox design (the bridge's socket handoff); SCM_RIGHTS confusion",
			Proxy: true, Expect: "the proxy's socket is out of the member's view, or a listening socket, a pipe, two descriptors or a wrong marker handed to it is answered 400 (proxyfd_linux.go)",
			Run: proxyPassDescriptor},
	}
}

const bridgeAddr = policy.ProxyAddr

// proxyStatus sends one request head to the bridge and returns the status code.
func proxyStatus(head string) (int, error) {
	c, err := net.DialTimeout("tcp4", bridgeAddr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(head)); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 0, err
	}
	var proto string
	var code int
	if _, err := fmt.Sscanf(line, "%s %d", &proto, &code); err != nil {
		return 0, fmt.Errorf("status line %q", strings.TrimSpace(line))
	}
	return code, nil
}

// expectRefused checks that each CONNECT target gets one of want.
func expectRefused(targets []string, want ...int) Outcome {
	var outs []Outcome
	for _, t := range targets {
		code, err := proxyStatus("CONNECT " + t + " HTTP/1.1\r\nHost: " + t + "\r\n\r\n")
		switch {
		case err != nil:
			outs = append(outs, errorf("%s: %v", t, err))
		case !slices.Contains(want, code):
			outs = append(outs, failf("%s: %d", t, code))
		default:
			outs = append(outs, passf("%s: %d", t, code))
		}
	}
	return worst(outs...)
}

func proxyLoopbackForms(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	p := fmt.Sprint(e.TCPPort)
	return expectRefused([]string{"127.0.0.1:" + p, "127.1:" + p, "2130706433:" + p, "0x7f.1:" + p, "0177.0.0.1:" + p,
		"[::1]:" + p, "[::ffff:127.0.0.1]:" + p}, 403)
}

func proxyHostAddresses(e *Env) Outcome {
	if e.TCPPort == 0 || len(e.HostAddrs) == 0 {
		return skipf("the runner named no listener or no host address")
	}
	var ts []string
	for _, a := range append([]string{"0.0.0.0"}, e.HostAddrs...) {
		ts = append(ts, net.JoinHostPort(a, fmt.Sprint(e.TCPPort)))
	}
	return expectRefused(ts, 403)
}

func proxyMalformed(e *Env) Outcome {
	if e.TCPPort == 0 {
		return skipf("the runner named no listener")
	}
	t := fmt.Sprintf("127.0.0.1:%d", e.TCPPort)
	heads := []struct{ name, head string }{
		{"origin-form", "GET / HTTP/1.1\r\nHost: " + t + "\r\n\r\n"},
		{"CL.TE", "POST http://" + t + "/ HTTP/1.1\r\nHost: " + t + "\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
		{"Host mismatch", "GET http://" + t + "/ HTTP/1.1\r\nHost: other.invalid\r\n\r\n"},
		{"userinfo", "GET http://user:pw@" + t + "/ HTTP/1.1\r\nHost: " + t + "\r\n\r\n"},
	}
	var outs []Outcome
	for _, x := range heads {
		name, h := x.name, x.head
		code, err := proxyStatus(h)
		switch {
		case err != nil:
			outs = append(outs, errorf("%s: %v", name, err))
		case code != 400: // 403 would come from the address check, proving nothing about the request check
			outs = append(outs, failf("%s: %d", name, code))
		default:
			outs = append(outs, passf("%s: %d", name, code))
		}
	}
	return worst(outs...)
}

func proxyDirect(e *Env) Outcome {
	if e.TCPPort == 0 || len(e.HostAddrs) == 0 {
		return skipf("the runner named no listener or no host address")
	}
	a := net.JoinHostPort(e.HostAddrs[0], fmt.Sprint(e.TCPPort))
	c, err := net.DialTimeout("tcp", a, 2*time.Second)
	if err == nil {
		c.Close()
		return failf("connected to %s directly", a)
	}
	return passf("%s: %s", a, short(err))
}

// ProxyMode runs the proxy probes in a sandbox of their own, launched as
// a user would (`acbox run --net proxy`), since the proxy is the CLI's:
// the backend alone has none.
func (r *Runner) ProxyMode() ([]Line, error) {
	env := r.Fixture.Env(nil)
	if r.docker() {
		env.Backend = Docker
	}
	args := env.Args()
	for _, id := range proxyIDs() {
		args = append(args, "--only="+id)
	}
	c := r.cliWith([]string{"--net", "proxy"}, args...)
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	timer := time.AfterFunc(2*time.Minute, func() { c.Process.Kill() })
	lines := readLines(out)
	c.Wait()
	timer.Stop()
	code := c.ProcessState.ExitCode()
	return r.complete(lines, Selection{Only: proxyIDs()}, &backend.Outcome{Code: code}), nil
}

func proxyIDs() []string {
	var out []string
	for _, p := range proxyProbes() {
		out = append(out, p.ID)
	}
	return out
}
