package bridge

import (
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingDial dials path and counts the dials.
func countingDial(path string, n *atomic.Int64) func() (net.Conn, error) {
	return func() (net.Conn, error) {
		n.Add(1)
		return net.Dial("unix", path)
	}
}

func serveBridge(t *testing.T, dial func() (net.Conn, error)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go Serve(ln, dial)
	return ln.Addr().String()
}

// TestDroppedConnectionsNeverDial: a burst of connections opened and
// dropped costs the proxy nothing, and the next request is relayed at once.
func TestDroppedConnectionsNeverDial(t *testing.T) {
	var dials atomic.Int64
	addr := serveBridge(t, countingDial(upstream(t), &dials))
	for range 500 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	start := time.Now()
	if got := exchange(t, addr, "after"); got != "got after" || time.Since(start) > time.Second {
		t.Errorf("after the burst: %q in %v", got, time.Since(start))
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("%d dials; want 1 (only the request)", n)
	}
}

// TestSilentClientClosed: a client that never sends is closed after the
// first-byte timeout, without a dial.
func TestSilentClientClosed(t *testing.T) {
	defer firstByteShort.Store(0)
	firstByteShort.Store(int64(200 * time.Millisecond))
	var dials atomic.Int64
	addr := serveBridge(t, countingDial(upstream(t), &dials))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF || n != 0 {
		t.Errorf("read %d, %v; want EOF", n, err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("closed after %v; want about 200ms", el)
	}
	if dials.Load() != 0 {
		t.Error("a silent client made the bridge dial")
	}
}

// TestRelayCap: past the cap a client gets a 503 that says why, and a freed
// slot serves the next client.
func TestRelayCap(t *testing.T) {
	defer func(n int) { maxRelays = n }(maxRelays)
	maxRelays = 2
	var dials atomic.Int64
	addr := serveBridge(t, countingDial(upstream(t), &dials))
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond) // both accepted
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET http://example.test/ HTTP/1.1\r\n\r\n")
	b, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasPrefix(string(b), "HTTP/1.1 503 ") || !strings.Contains(string(b), "too many open connections") {
		t.Errorf("over the cap: %q; want a 503 naming the cap", b)
	}
	held[0].Close()
	var got string
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && got != "got again"; {
		time.Sleep(20 * time.Millisecond)
		got = exchange(t, addr, "again")
	}
	if got != "got again" {
		t.Errorf("after a slot was freed: %q", got)
	}
	held[1].Close()
}
