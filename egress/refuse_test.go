package egress

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestMalformedRefused: request shapes that two parsers could read
// differently, or that a proxy must not serve, never reach the origin.
func TestMalformedRefused(t *testing.T) {
	w := newWorld(t, nil)
	o := fmt.Sprintf("origin.test:%d", w.oport)
	tests := []struct {
		name string
		raw  string
		want int
	}{
		{"origin-form", "GET / HTTP/1.1\r\nHost: " + o + "\r\n\r\n", 400},
		{"asterisk", "OPTIONS * HTTP/1.1\r\n\r\n", 400},
		{"https absolute", "GET https://" + o + "/ HTTP/1.1\r\n\r\n", 400},
		{"Host disagrees", "GET http://" + o + "/ HTTP/1.1\r\nHost: other.test\r\n\r\n", 400},
		{"Host other port", "GET http://" + o + "/ HTTP/1.1\r\nHost: origin.test\r\n\r\n", 400},
		{"two Hosts", "GET http://" + o + "/ HTTP/1.1\r\nHost: " + o + "\r\nHost: " + o + "\r\n\r\n", 400},
		{"CONNECT Host disagrees", "CONNECT " + o + " HTTP/1.1\r\nHost: other.test:1\r\n\r\n", 400},
		{"userinfo", "GET http://user:pw@" + o + "/ HTTP/1.1\r\n\r\n", 400},
		{"CONNECT userinfo", "CONNECT user@" + o + " HTTP/1.1\r\n\r\n", 400},
		{"CONNECT no port", "CONNECT origin.test HTTP/1.1\r\n\r\n", 400},
		{"CL and TE", "POST http://" + o + "/ HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"TE and CL", "POST http://" + o + "/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n", 400},
		{"duplicate CL", "POST http://" + o + "/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400},
		{"conflicting CL", "POST http://" + o + "/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400},
		{"CL list", "POST http://" + o + "/ HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc", 400},
		{"CL sign", "POST http://" + o + "/ HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc", 400},
		{"TE list", "POST http://" + o + "/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400},
		{"TE twice", "POST http://" + o + "/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"TE in 1.0", "POST http://" + o + "/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"bare LF", "GET http://" + o + "/ HTTP/1.1\nHost: " + o + "\n\n", 400},
		{"obs-fold", "GET http://" + o + "/ HTTP/1.1\r\nX-A: 1\r\n  folded\r\n\r\n", 400},
		{"space before colon", "GET http://" + o + "/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", 400},
		{"NUL in value", "GET http://" + o + "/ HTTP/1.1\r\nX-A: a\x00b\r\n\r\n", 400},
		{"HTTP/2", "GET http://" + o + "/ HTTP/2.0\r\n\r\n", 400},
		{"double space", "GET  http://" + o + "/ HTTP/1.1\r\n\r\n", 400},
		{"fragment", "GET http://" + o + "/#x HTTP/1.1\r\n\r\n", 400},
		{"percent host", "GET http://origin%2etest:1/ HTTP/1.1\r\n\r\n", 400},
		{"CONNECT with body", "CONNECT " + o + " HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 400},
		{"truncated head", "GET http://" + o + "/ HTTP/1.1\r\nHost: x", 400},
	}
	for i, tt := range tests {
		status, reply := w.roundTrip(tt.raw)
		if status != tt.want {
			t.Errorf("%s: status %d; want %d (%q)", tt.name, status, tt.want, reply)
		}
		if d := w.lastEvent(i + 1); d.Allowed || d.Reason == "" {
			t.Errorf("%s: decision %+v", tt.name, d)
		}
	}
	if _, dials, _, hits := w.snapshot(); hits != 0 || len(dials) != 0 {
		t.Errorf("malformed requests reached the network: %d origin hits, dials %v", hits, dials)
	}
}

func TestOversizeHeaders(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.MaxHeaderBytes = 1024 })
	raw := fmt.Sprintf("GET http://origin.test:%d/ HTTP/1.1\r\nX-Big: %s\r\n\r\n", w.oport, strings.Repeat("a", 2000))
	if status, _ := w.roundTrip(raw); status != 431 {
		t.Errorf("status %d; want 431", status)
	}
	raw = fmt.Sprintf("GET http://origin.test:%d/ HTTP/1.1\r\n%s\r\n", w.oport, strings.Repeat("X-A: 1\r\n", 200))
	if status, _ := w.roundTrip(raw); status != 431 {
		t.Errorf("many headers: status %d; want 431", status)
	}
	if _, _, _, hits := w.snapshot(); hits != 0 {
		t.Errorf("origin hits %d", hits)
	}
}

func TestSlowHeaders(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.HeaderTimeout = 150 * time.Millisecond })
	start := time.Now()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET http://origin.test/ HTTP/1.1\r\nX-Slow: ")
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	b, _ := io.ReadAll(c)
	if statusOfReply(string(b)) != 408 || time.Since(start) > 2*time.Second {
		t.Errorf("after %v: %q; want 408 soon after the header timeout", time.Since(start), b)
	}
	if d := w.lastEvent(1); d.Allowed || !strings.Contains(d.Reason, "in time") {
		t.Errorf("decision %+v", d)
	}
}

// plainConn hides a connection's type, so the tunnel cannot splice it or
// read its TCP counters and falls back to its read loop.
type plainConn struct{ net.Conn }

// TestIdleTimeout: traffic keeps a tunnel open past the idle timeout and
// silence closes it, both when the tunnel splices and the watchdog reads
// the upstream socket's TCP_INFO counters, and in the read loop.
func TestIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap bool
	}{{"splice with TCP_INFO", false}, {"read loop", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var w *world
			w = newWorld(t, func(c *Config) {
				c.IdleTimeout = 500 * time.Millisecond
				if tc.wrap {
					c.Dial = func(ctx context.Context, n, a string) (net.Conn, error) {
						up, err := w.dial(ctx, n, a)
						return plainConn{up}, err
					}
				}
			})
			checkIdle(t, w)
		})
	}
}

func checkIdle(t *testing.T, w *world) {
	c, err := w.connect(fmt.Sprintf("127.0.0.1:%d", w.eport))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Traffic keeps it open past the timeout...
	buf := make([]byte, 1)
	for range 10 {
		time.Sleep(80 * time.Millisecond)
		c.Write([]byte("x"))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatalf("active tunnel closed: %v", err)
		}
	}
	// ...and silence closes it.
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if n, err := c.Read(buf); err != io.EOF {
		t.Fatalf("idle tunnel read %d, %v; want EOF", n, err)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Errorf("idle tunnel closed after %v", el)
	}
}

// TestConnectionCap: a connection over the cap that waits in the queue
// past QueueTimeout is answered 503; a freed slot serves again.
func TestConnectionCap(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.MaxConns = 2; c.QueueTimeout = 200 * time.Millisecond })
	var open []net.Conn
	for range 2 {
		c, err := w.connect(fmt.Sprintf("127.0.0.1:%d", w.eport))
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(3 * time.Second))
	b, _ := io.ReadAll(c)
	c.Close()
	if statusOfReply(string(b)) != 503 {
		t.Errorf("third connection got %q; want 503", b)
	}
	// Freeing a slot makes the proxy usable again.
	open[0].Close()
	var again net.Conn
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if again, err = w.connect(fmt.Sprintf("127.0.0.1:%d", w.eport)); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("after freeing a slot: %v", err)
	}
	again.Close()
	open[1].Close()
}

func TestCloseEndsEverything(t *testing.T) {
	w := newWorld(t, nil)
	c, err := w.connect(fmt.Sprintf("127.0.0.1:%d", w.eport))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w.proxy.Close()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("tunnel still open after Close")
	}
	select {
	case err := <-w.served:
		if err != nil {
			t.Errorf("Serve returned %v; want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("Serve did not return after Close")
	}
}

// TestDefaults: the limits a zero Config gets are the documented ones.
func TestDefaults(t *testing.T) {
	p := New(Config{})
	defer p.Close()
	c := p.cfg
	if c.MaxConns != 256 || c.HeaderTimeout != 30*time.Second || c.IdleTimeout != 5*time.Minute || c.MaxHeaderBytes != 32<<10 || cap(p.slots) != 256 {
		t.Errorf("defaults: max conns %d, header timeout %v, idle timeout %v, max header %d, slots %d",
			c.MaxConns, c.HeaderTimeout, c.IdleTimeout, c.MaxHeaderBytes, cap(p.slots))
	}
	if c.MaxQueue != 1024 || c.QueueTimeout != 30*time.Second {
		t.Errorf("defaults: queue %d, queue timeout %v; want 1024, 30s", c.MaxQueue, c.QueueTimeout)
	}
}
