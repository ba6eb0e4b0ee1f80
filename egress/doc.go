// Package egress decides where a sandbox may connect, and enforces it with an
// HTTP proxy that runs outside the sandbox.
//
// A sandbox has one of three network modes ([Mode]): "none" (no network at all,
// the default), "proxy" (only through this package's [Proxy]) and "host" (the
// host's network, unfiltered). In proxy mode an allow list of [Rule]s names the
// destinations; without a list any public destination is allowed.
//
// [Policy] is the one form of a sandbox's network policy. coordinator/policy
// parses the launch spec's request into it once; the plan carries it (its JSON
// is the plan's "network" block), the [Proxy] enforces it, and a nested launch
// is held within its requester's with [Policy.NarrowerThan].
//
// # Example
//
//	pol := egress.Policy{Mode: egress.ModeProxy, Allow: []egress.Rule{
//		{Host: "api.example.com"},                        // ports 80 and 443
//		{Host: "example.org", Wildcard: true, Port: 443}, // *.example.org:443
//	}}
//	// Or, from the command line: r, err := egress.ParseRule("*.example.org:443")
//	p := egress.New(egress.Config{Policy: pol, OnDecision: logDecision})
//	ln, _ := net.Listen("unix", sock)
//	go p.Serve(ln)
//	defer p.Close()
//
// # What the proxy does
//
// It serves CONNECT host:port (a raw tunnel) and absolute-form plain HTTP
// ("GET http://host/path"), one request per client connection. For every
// request it checks, in this order: the request is well formed (no smuggling
// shapes, no userinfo, a Host header that agrees with the target, headers
// small and fast enough); the name as written is on the allow list, before any
// DNS lookup, so a refused name is never resolved; every address the name
// resolves to is public ([Classify]) and not an address of this host
// ([HostAddrs]); and then it dials exactly the address it checked, never the
// name again. An IP literal, in any notation the C library would accept
// ([ParseIPLiteral]), is judged as the address it really is and never given
// to a resolver. Each request yields one [Decision] for the event log; the
// client gets only a terse status line.
//
// # Tunnels
//
// A CONNECT tunnel copies both ways until both ends have closed, passing each
// half-close on, through a read loop that takes a buffer only once its
// source is readable (up to 1 MiB, at most 16 of those at once), so an idle
// tunnel holds none. The idle timeout ([Config].IdleTimeout) also reads the
// upstream socket's own counters (TCP_INFO) every quarter of the timeout, so
// a tunnel with no byte moving either way closes 1 to 1.25 timeouts after
// its last byte.
//
// # The bridge's handoff
//
// On Linux a client on a Unix socket may send, as its first message, one
// marker byte with one descriptor (SCM_RIGHTS): the bridge so hands over the
// member's accepted TCP socket, and the proxy reads, judges, answers and
// relays from that socket itself, keeping the Unix connection open until
// the exchange ends. Anything else with control data (not one connected
// TCP socket, more than one, no marker, a malformed control message) is
// refused with a 400, every descriptor received closed. A handoff the
// kernel cut short because the proxy is at its open-file limit (it drops
// the descriptor and sets MSG_CTRUNC) is refused with a 503, never read as
// a request; the member's socket is closed with the dropped descriptor. A
// client that sends no control data is served as the request it sends.
//
// # Connections
//
// At most [Config].MaxConns client connections (256) are served at once.
// Beyond that a connection waits for a slot, first come first served, in a
// queue of at most [Config].MaxQueue (1024) for at most
// [Config].QueueTimeout (30s); a waiting connection holds its socket and a
// parked goroutine, no buffer, and nothing of it is read. Past either bound
// it is answered 503 naming the limit and closed, so a flood costs bounded
// memory and the accept loop never blocks.
//
// # Limits
//
//   - An allowed host receives whatever the sandbox sends it. An allow list is
//     not privacy.
//   - Inside a CONNECT tunnel the proxy sees bytes, not requests: TLS to an
//     allowed name may carry an SNI or Host for another name hosted on the same
//     addresses (domain fronting). The allow list holds at the address level.
//   - Plain HTTP is one request per connection; the proxy sends
//     "Connection: close" both ways. Upgrades (WebSocket over plain HTTP) are
//     refused; use CONNECT.
//   - The resolver, the classifier and the dialer are seams for tests
//     ([Config]); nothing in this package reads them from flags or the
//     environment.
package egress
