package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestConnectTunnel(t *testing.T) {
	w := newWorld(t, nil)
	w.answer("echo.test", loopback)
	c, err := w.connect(fmt.Sprintf("echo.test:%d", w.eport))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo through tunnel = %q, %v", buf, err)
	}
	d := w.lastEvent(1)
	want := Decision{Allowed: true, Host: "echo.test", Port: w.eport, Addr: fmt.Sprintf("127.0.0.1:%d", w.eport), Method: "CONNECT"}
	if d != want {
		t.Errorf("decision = %+v; want %+v", d, want)
	}
}

// TestHalfClose: the client half-closes; the echo server sees EOF only if
// the proxy passes the CloseWrite on, then echoes and half-closes back.
func TestHalfClose(t *testing.T) {
	w := newWorld(t, nil)
	c, err := w.connect(fmt.Sprintf("127.0.0.1:%d", w.eport))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "half-closed")
	c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "half-closed" {
		t.Fatalf("after half-close read %q, %v; want the echo, then EOF", got, err)
	}
}

// TestPipelinedTunnelBytes: bytes sent right behind the CONNECT head are
// not lost.
func TestPipelinedTunnelBytes(t *testing.T) {
	w := newWorld(t, nil)
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\nearly", w.eport)
	c.(*net.TCPConn).CloseWrite()
	got, _ := io.ReadAll(c)
	if want := "HTTP/1.1 200 Connection established\r\n\r\nearly"; string(got) != want {
		t.Fatalf("got %q; want %q", got, want)
	}
}

func TestPlainHTTP(t *testing.T) {
	w := newWorld(t, nil)
	status, reply := w.roundTrip(fmt.Sprintf("GET http://origin.test:%d/path?q=1 HTTP/1.1\r\nHost: origin.test:%d\r\n"+
		"Connection: X-Secret\r\nX-Secret: 1\r\nProxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\n"+
		"Keep-Alive: 300\r\nTE: trailers\r\nUpgrade: websocket\r\nX-Kept: yes\r\n\r\n", w.oport, w.oport))
	if status != 200 || !strings.HasSuffix(reply, "hello from /path") {
		t.Fatalf("reply %q", reply)
	}
	for _, h := range []string{"Keep-Alive", "Proxy-Authenticate"} {
		if strings.Contains(reply, h) {
			t.Errorf("reply kept hop-by-hop header %s: %q", h, reply)
		}
	}
	if !strings.Contains(reply, "Connection: close") {
		t.Errorf("reply lacks Connection: close: %q", reply)
	}
	w.mu.Lock()
	r := w.hits[0]
	w.mu.Unlock()
	for _, h := range []string{"X-Secret", "Proxy-Authorization", "Proxy-Connection", "Keep-Alive", "Te", "Upgrade"} {
		if _, ok := r.Header[h]; ok {
			t.Errorf("origin received hop-by-hop header %s", h)
		}
	}
	if r.Header.Get("X-Kept") != "yes" || r.Host != fmt.Sprintf("origin.test:%d", w.oport) || r.RequestURI != "/path?q=1" || !r.Close {
		t.Errorf("origin saw Host %q URI %q headers %v close %v", r.Host, r.RequestURI, r.Header, r.Close)
	}
	if d := w.lastEvent(1); !d.Allowed || d.Method != "GET" || d.Host != "origin.test" {
		t.Errorf("decision %+v", d)
	}
}

func TestChunkedBodyReframed(t *testing.T) {
	w := newWorld(t, nil)
	status, reply := w.roundTrip(fmt.Sprintf("POST http://origin.test:%d/echo-body HTTP/1.1\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", w.oport))
	if status != 200 || !strings.Contains(reply, "body=hello world") {
		t.Fatalf("reply %q", reply)
	}
	status, reply = w.roundTrip(fmt.Sprintf("POST http://origin.test:%d/echo-body HTTP/1.1\r\n"+
		"Content-Length: 3\r\nExpect: 100-continue\r\n\r\nabc", w.oport))
	if status != 100 || !strings.Contains(reply, "body=abc") {
		t.Fatalf("reply %q", reply)
	}
}

func TestRedirectPassedThrough(t *testing.T) {
	w := newWorld(t, nil)
	status, reply := w.roundTrip(fmt.Sprintf("GET http://origin.test:%d/redirect HTTP/1.1\r\n\r\n", w.oport))
	if status != 302 || !strings.Contains(reply, "Location: http://elsewhere.test/") {
		t.Fatalf("reply %q", reply)
	}
	lookups, _, _, hits := w.snapshot()
	if hits != 1 || slices.Contains(lookups, "elsewhere.test") {
		t.Errorf("origin hits %d, lookups %v: the redirect was followed", hits, lookups)
	}
}

func TestAllowListBeforeDNS(t *testing.T) {
	w := newWorld(t, func(c *Config) {
		c.Policy = Policy{Mode: ModeProxy, Allow: rules(t, "origin.test")}
	})
	w.answer("evil.test", loopback)
	for _, raw := range []string{
		fmt.Sprintf("CONNECT evil.test:%d HTTP/1.1\r\n\r\n", w.eport),
		fmt.Sprintf("GET http://evil.test:%d/ HTTP/1.1\r\n\r\n", w.oport),
		fmt.Sprintf("CONNECT origin.test:%d HTTP/1.1\r\n\r\n", w.eport), // port not allowed
	} {
		if status, reply := w.roundTrip(raw); status != 403 || reply != "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nConnection: close\r\n\r\nForbidden\n" {
			t.Errorf("%q: reply %q; want a terse 403", raw, reply)
		}
	}
	lookups, dials, events, _ := w.snapshot()
	if len(lookups) != 0 || len(dials) != 0 {
		t.Errorf("refused names reached the resolver %v or the dialer %v", lookups, dials)
	}
	if len(events) != 3 || events[0].Allowed || !strings.Contains(events[0].Reason, "not on the allow list") || events[0].Host != "evil.test" {
		t.Errorf("decisions %+v", events)
	}
}

func TestModeNoneRefusesEverything(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.Policy = Policy{} })
	if status, _ := w.roundTrip(fmt.Sprintf("CONNECT origin.test:%d HTTP/1.1\r\n\r\n", w.oport)); status != 403 {
		t.Errorf("status %d; want 403", status)
	}
	if lookups, _, _, _ := w.snapshot(); len(lookups) != 0 {
		t.Errorf("lookups %v", lookups)
	}
}

func TestResolvedAddressesChecked(t *testing.T) {
	w := newWorld(t, nil)
	w.answer("private.test", netip.MustParseAddr("10.0.0.1"))
	w.answer("loop2.test", netip.MustParseAddr("127.0.0.2"))
	w.answer("mixed.test", loopback, netip.MustParseAddr("192.168.1.1"))
	w.answer("mapped.test", netip.MustParseAddr("::ffff:169.254.169.254"))
	w.answer("v6local.test", netip.MustParseAddr("::1"))
	w.answer("empty.test")
	tests := map[string]int{"private.test": 403, "loop2.test": 403, "mixed.test": 403, "mapped.test": 403,
		"v6local.test": 403, "empty.test": 502, "nxdomain.test": 502}
	for name, want := range tests {
		status, _ := w.roundTrip(fmt.Sprintf("CONNECT %s:%d HTTP/1.1\r\n\r\n", name, w.eport))
		if status != want {
			t.Errorf("%s: status %d; want %d", name, status, want)
		}
	}
	_, dials, events, _ := w.snapshot()
	if len(dials) != 0 {
		t.Errorf("refused destinations were dialed: %v", dials)
	}
	for _, d := range events {
		if d.Allowed || d.Reason == "" {
			t.Errorf("decision %+v", d)
		}
	}
}

// TestDialsTheCheckedAddress: the second lookup of the name would answer a
// private address; the proxy must look up once and dial what it checked.
func TestDialsTheCheckedAddress(t *testing.T) {
	w := newWorld(t, nil)
	w.answerSequence("rebind.test", []netip.Addr{loopback}, []netip.Addr{netip.MustParseAddr("10.9.9.9")})
	c, err := w.connect(fmt.Sprintf("rebind.test:%d", w.eport))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	lookups, dials, _, _ := w.snapshot()
	if want := fmt.Sprintf("127.0.0.1:%d", w.eport); len(lookups) != 1 || !slices.Equal(dials, []string{want}) {
		t.Errorf("lookups %v, dials %v; want one lookup and a dial of %s", lookups, dials, want)
	}
	// The next request gets the private answer and is refused.
	if status, _ := w.roundTrip(fmt.Sprintf("CONNECT rebind.test:%d HTTP/1.1\r\n\r\n", w.eport)); status != 403 {
		t.Errorf("rebound name: status %d; want 403", status)
	}
}

func TestLiteralsNeverResolved(t *testing.T) {
	w := newWorld(t, nil)
	for _, host := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "127.0.1", "[::ffff:127.0.0.1]"} {
		c, err := w.connect(fmt.Sprintf("%s:%d", host, w.eport))
		if err != nil {
			t.Errorf("%s: %v", host, err)
			continue
		}
		c.Close()
	}
	for _, host := range []string{"127.2", "0x7f000002", "[::1]", "0", "10.1", "169.254.43518"} {
		if status, _ := w.roundTrip(fmt.Sprintf("CONNECT %s:%d HTTP/1.1\r\n\r\n", host, w.eport)); status != 403 {
			t.Errorf("%s: status %d; want 403", host, status)
		}
	}
	for _, host := range []string{"1.2.3.4.5", "0x7g.1", "999.0.0.1"} {
		if status, _ := w.roundTrip(fmt.Sprintf("CONNECT %s:%d HTTP/1.1\r\n\r\n", host, w.eport)); status != 400 {
			t.Errorf("%s: status %d; want 400", host, status)
		}
	}
	if lookups, _, _, _ := w.snapshot(); len(lookups) != 0 {
		t.Errorf("literals reached the resolver: %v", lookups)
	}
}

func TestHostAddressRefused(t *testing.T) {
	c := &publicChecker{
		classify: testIsPublic,
		list:     func() ([]netip.Addr, error) { return []netip.Addr{loopback}, nil },
	}
	w := newWorld(t, func(cfg *Config) { cfg.IsPublic = c.isPublic })
	status, _ := w.roundTrip(fmt.Sprintf("CONNECT origin.test:%d HTTP/1.1\r\n\r\n", w.oport))
	if d := w.lastEvent(1); status != 403 || !strings.Contains(d.Reason, "address of this host") {
		t.Errorf("status %d, decision %+v", status, d)
	}
}

func TestDefaultIsPublicRefusesLoopback(t *testing.T) {
	w := newWorld(t, func(cfg *Config) { cfg.IsPublic = nil })
	status, _ := w.roundTrip(fmt.Sprintf("CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", w.eport))
	if d := w.lastEvent(1); status != 403 || !strings.Contains(d.Reason, "loopback") {
		t.Errorf("status %d, decision %+v", status, d)
	}
}

// TestStreamedResponse: a chunked response reaches an HTTP/1.1 client
// chunked, and an HTTP/1.0 client as a close-delimited body.
func TestStreamedResponse(t *testing.T) {
	w := newWorld(t, nil)
	for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
		_, reply := w.roundTrip(fmt.Sprintf("GET http://origin.test:%d/big %s\r\n\r\n", w.oport, proto))
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(reply)), nil)
		if err != nil {
			t.Fatalf("%s: %v", proto, err)
		}
		body, err := io.ReadAll(resp.Body)
		chunked := slices.Contains(resp.TransferEncoding, "chunked")
		if err != nil || len(body) != 100*1000 || resp.Proto != proto || chunked != (proto == "HTTP/1.1") || !resp.Close {
			t.Errorf("%s: got %s, %d bytes, %v, chunked %v, close %v", proto, resp.Proto, len(body), err, chunked, resp.Close)
		}
	}
}

// TestManyConcurrent: the proxy stays healthy under parallel load.
func TestManyConcurrent(t *testing.T) {
	w := newWorld(t, nil)
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := w.connect(fmt.Sprintf("origin.test:%d", w.eport))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, "abc")
			c.(*net.TCPConn).CloseWrite()
			if b, err := io.ReadAll(c); err != nil || string(b) != "abc" {
				t.Errorf("echo %q, %v", b, err)
			}
		}()
	}
	wg.Wait()
}

// TestEarlyResponse: an origin that answers before the body arrives ends the
// exchange at once, even though the client never sends the rest.
func TestEarlyResponse(t *testing.T) {
	w := newWorld(t, nil)
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetDeadline(start.Add(3 * time.Second))
	fmt.Fprintf(c, "POST http://origin.test:%d/early HTTP/1.1\r\nContent-Length: 1000\r\n\r\nonly ten..", w.oport)
	b, err := io.ReadAll(c)
	if !strings.HasSuffix(string(b), "early answer") || time.Since(start) > 2*time.Second {
		t.Errorf("after %v: %q, %v", time.Since(start), b, err)
	}
}
