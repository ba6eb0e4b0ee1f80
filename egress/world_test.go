package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// world is the proxy test fixture. Nothing in it leaves loopback:
//
//   - origin: an httptest server on 127.0.0.1, the "public web server";
//   - echo: a raw TCP server on 127.0.0.1 that echoes until EOF, then
//     half-closes;
//   - dns: the fake resolver's answers, name -> addresses, recording every
//     lookup (a name missing from it fails to resolve);
//   - isPublic: Classify, except that 127.0.0.1 counts as public, so the
//     origin is reachable and every other loopback address is not;
//   - dial: the real dialer, recording every address dialed;
//   - proxy: on 127.0.0.1, with decisions recorded.
type world struct {
	t       *testing.T
	origin  *httptest.Server
	oport   int
	echo    net.Listener
	eport   int
	proxy   *Proxy
	addr    string
	served  chan error
	mu      sync.Mutex
	dns     map[string][][]netip.Addr // each lookup pops the first answer; the last one repeats
	lookups []string
	dials   []string
	events  []Decision
	hits    []*http.Request
}

var loopback = netip.MustParseAddr("127.0.0.1")

func testIsPublic(a netip.Addr) (bool, string) {
	if a == loopback {
		return true, ""
	}
	return Classify(a)
}

func newWorld(t *testing.T, mutate func(*Config)) *world {
	w := &world{t: t, dns: map[string][][]netip.Addr{}}
	w.origin = httptest.NewServer(http.HandlerFunc(w.serveOrigin))
	t.Cleanup(w.origin.Close)
	w.oport = w.origin.Listener.Addr().(*net.TCPAddr).Port
	w.echo = listen(t)
	w.eport = w.echo.Addr().(*net.TCPAddr).Port
	go serveEcho(w.echo)
	w.answer("origin.test", loopback)
	cfg := Config{
		Policy:        Policy{Mode: ModeProxy, AllowAny: true},
		Resolve:       w.resolve,
		IsPublic:      testIsPublic,
		Dial:          w.dial,
		OnDecision:    w.record,
		HeaderTimeout: 2 * time.Second,
		IdleTimeout:   5 * time.Second,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	w.proxy = New(cfg)
	ln := listen(t)
	w.addr = ln.Addr().String()
	w.served = make(chan error, 1)
	go func() { w.served <- w.proxy.Serve(ln) }()
	t.Cleanup(func() { w.proxy.Close() })
	return w
}

func listen(t testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// answer sets the fake DNS answers for name, one per successive lookup.
func (w *world) answer(name string, answers ...netip.Addr) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dns[name] = [][]netip.Addr{answers}
}

func (w *world) answerSequence(name string, seq ...[]netip.Addr) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dns[name] = seq
}

func (w *world) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lookups = append(w.lookups, host)
	seq, ok := w.dns[host]
	if !ok {
		return nil, errors.New("no such host (fake resolver)")
	}
	if len(seq) > 1 {
		w.dns[host] = seq[1:]
	}
	return seq[0], nil
}

func (w *world) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	w.mu.Lock()
	w.dials = append(w.dials, addr)
	w.mu.Unlock()
	if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("test dialer: %s is not loopback; refusing to send a packet", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (w *world) record(d Decision) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, d)
}

func (w *world) serveOrigin(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.hits = append(w.hits, r)
	w.mu.Unlock()
	switch r.URL.Path {
	case "/redirect":
		http.Redirect(rw, r, "http://elsewhere.test/", http.StatusFound)
	case "/big":
		for i := range 100 {
			fmt.Fprintf(rw, "%04d%s\n", i, strings.Repeat("x", 995))
			rw.(http.Flusher).Flush()
		}
	case "/early": // answer in full without reading the body
		rw.Header().Set("Content-Length", "12")
		fmt.Fprint(rw, "early answer")
		rw.(http.Flusher).Flush()
	case "/slow": // holds the exchange, so simultaneous requests overlap
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(rw, "slow")
	case "/echo-body":
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(rw, "body=%s", b)
	default:
		rw.Header().Set("Keep-Alive", "timeout=5")
		rw.Header().Set("Proxy-Authenticate", "Basic")
		fmt.Fprintf(rw, "hello from %s", r.URL.Path)
	}
}

func serveEcho(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
			c.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, c)
		}()
	}
}

// snapshot returns copies of what the world recorded.
func (w *world) snapshot() (lookups, dials []string, events []Decision, hits int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.lookups...), append([]string{}, w.dials...), append([]Decision{}, w.events...), len(w.hits)
}

// lastEvent waits briefly for the decision of the latest request.
func (w *world) lastEvent(n int) Decision {
	w.t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, _, ev, _ := w.snapshot()
		if len(ev) >= n {
			return ev[n-1]
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no decision #%d", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// roundTrip sends raw bytes to the proxy, half-closes, and returns the
// status and the whole reply, read to EOF.
func (w *world) roundTrip(raw string) (int, string) {
	w.t.Helper()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, raw)
	c.(*net.TCPConn).CloseWrite() // a truncated request is truncated, not slow
	b, _ := io.ReadAll(c)
	return statusOfReply(string(b)), string(b)
}

func statusOfReply(s string) int {
	_, rest, _ := strings.Cut(s, " ")
	code, _ := strconv.Atoi(strings.SplitN(rest, " ", 2)[0])
	return code
}

// connect opens a CONNECT tunnel and returns it after the 200.
func (w *world) connect(authority string) (net.Conn, error) {
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != 200 {
		c.Close()
		return nil, fmt.Errorf("CONNECT %s: %s", authority, resp.Status)
	}
	if br.Buffered() > 0 {
		c.Close()
		return nil, errors.New("bytes after the 200")
	}
	c.SetDeadline(time.Time{})
	return c, nil
}
