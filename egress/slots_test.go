package egress

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Slots: connections that hold one of the MaxConns slots without progress
// are closed by the header and idle timeouts, and a client over the cap gets
// an answer that says why. A member that opens connections and stalls them
// can slow its own sandbox's proxy for a timeout, never wedge it.

// rawDial opens a plain connection to the proxy.
func (w *world) rawDial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSlowlorisHeadEndsAtHeaderTimeout: a head dribbled a byte at a time,
// each byte well inside the timeout, still ends at the header timeout: the
// deadline is for the whole head, not renewed by every read.
func TestSlowlorisHeadEndsAtHeaderTimeout(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.HeaderTimeout = 300 * time.Millisecond })
	c := w.rawDial(t)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, b := range []byte("GET http://origin.test/ HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(40 * time.Millisecond)
		}
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	el := time.Since(start)
	c.Close()
	<-done
	if statusOfReply(string(b)) != 408 || el > 1500*time.Millisecond {
		t.Errorf("after %v: %q; want 408 near the 300ms header timeout", el, b)
	}
}

// TestSilentUpstreamEndsAtIdleTimeout: an origin that accepts and never
// answers holds the exchange only until the idle timeout, and the slot is
// free afterwards (MaxConns 1: the next request is served).
func TestSilentUpstreamEndsAtIdleTimeout(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.IdleTimeout = 300 * time.Millisecond; c.MaxConns = 1 })
	silent := listen(t)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	port := silent.Addr().(*net.TCPAddr).Port
	start := time.Now()
	c := w.rawDial(t)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port, port)
	io.ReadAll(c)
	if el := time.Since(start); el < 250*time.Millisecond || el > 2*time.Second {
		t.Errorf("the exchange with a silent origin ended after %v; want about the 300ms idle timeout", el)
	}
	if code, _ := w.roundTripEventually(t, w.originGet()); code != 200 {
		t.Errorf("after the idle timeout: status %d; want 200 (the slot is free)", code)
	}
}

// TestCapAnswersAndRecovers: with every slot held by a client that never
// sends its head, the next client waits in the queue and, past its
// QueueTimeout, gets a 503 naming the cap, read in full (no reset even
// though the proxy never read its request); once the header timeout has
// closed the stalled clients, requests are served again.
func TestCapAnswersAndRecovers(t *testing.T) {
	w := newWorld(t, func(c *Config) {
		c.MaxConns = 2
		c.HeaderTimeout = 400 * time.Millisecond
		c.QueueTimeout = 100 * time.Millisecond
	})
	for range 2 {
		w.rawDial(t) // holds a slot, sends nothing
	}
	time.Sleep(50 * time.Millisecond)
	c := w.rawDial(t)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET http://origin.test/ HTTP/1.1\r\nHost: origin.test\r\nX-Pad: "+strings.Repeat("p", 8<<10)+"\r\n\r\n")
	b, err := io.ReadAll(c)
	if statusOfReply(string(b)) != 503 || !strings.Contains(string(b), "too many open connections through the proxy (limit 2)") || err != nil {
		t.Errorf("over the cap: %q, %v; want a 503 naming the limit, read to EOF", b, err)
	}
	start := time.Now()
	code, _ := w.roundTripEventually(t, w.originGet())
	if el := time.Since(start); code != 200 || el > 2*time.Second {
		t.Errorf("after the stalled clients' header timeout: status %d after %v; want 200 within about 400ms", code, el)
	}
}

// originGet is a plain GET of the origin through the proxy.
func (w *world) originGet() string {
	return fmt.Sprintf("GET http://origin.test:%d/ HTTP/1.1\r\nHost: origin.test:%d\r\n\r\n", w.oport, w.oport)
}

// roundTripEventually retries roundTrip for up to 3 s while the proxy
// answers 503 (busy), and returns the first other answer.
func (w *world) roundTripEventually(t *testing.T, raw string) (int, string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, body := w.roundTrip(raw)
		if code != 503 || time.Now().After(deadline) {
			return code, body
		}
	}
}
