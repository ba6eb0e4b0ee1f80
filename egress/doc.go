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
// half-close on. Between kernel sockets it moves the bytes with splice(2);
// the idle timeout ([Config].IdleTimeout) then reads the upstream socket's own
// counters (TCP_INFO) every quarter of the timeout, so a tunnel with no byte
// moving either way closes 1 to 1.25 timeouts after its last byte. Each open
// spliced tunnel holds two kernel pipes. Other connections (test dialers) are
// copied by a read loop that holds no buffer while idle.
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
