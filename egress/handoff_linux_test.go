package egress

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// serveUnix serves w's proxy on a Unix socket too, as the coordinator does,
// and returns its path.
func (w *world) serveUnix() string {
	path := filepath.Join(w.t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		w.t.Fatal(err)
	}
	go w.proxy.Serve(ln)
	return path
}

// handOver dials the proxy's Unix socket and sends fds with data, as the
// bridge sends the member's socket; it returns the Unix connection.
func handOver(t *testing.T, path string, data []byte, fds ...int) *net.UnixConn {
	t.Helper()
	u, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	if _, _, err := u.(*net.UnixConn).WriteMsgUnix(data, unix.UnixRights(fds...), nil); err != nil {
		t.Fatal(err)
	}
	return u.(*net.UnixConn)
}

// tcpPair returns both ends of a loopback TCP connection: the client's,
// and the accepted one's descriptor (which the bridge would hand over).
func tcpPair(t *testing.T) (client net.Conn, accepted *os.File) {
	t.Helper()
	ln := listen(t)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := s.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return client, f
}

// TestHandoffTunnel: the bridge hands the member's socket over the Unix
// socket; the proxy reads and judges the request from that socket, answers
// on it, relays the tunnel from it, and closes the Unix connection when
// the exchange ends (which frees the bridge's relay slot).
func TestHandoffTunnel(t *testing.T) {
	w := newWorld(t, nil)
	w.answer("echo.test", loopback)
	client, f := tcpPair(t)
	u := handOver(t, w.serveUnix(), []byte{handoffMarker}, int(f.Fd()))
	f.Close() // the proxy holds the only other copy now
	client.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(client, "CONNECT echo.test:%d HTTP/1.1\r\n\r\nping", w.eport)
	want := "HTTP/1.1 200 Connection established\r\n\r\nping"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
		t.Fatalf("through the handed socket: %q, %v; want %q", got, err, want)
	}
	if d := w.lastEvent(1); !d.Allowed || d.Host != "echo.test" || d.Method != "CONNECT" {
		t.Errorf("decision %+v", d)
	}
	client.(*net.TCPConn).CloseWrite()
	if rest, err := io.ReadAll(client); err != nil || len(rest) != 0 {
		t.Errorf("after half-close: %q, %v; want EOF", rest, err)
	}
	u.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := u.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("the Unix connection after the exchange: %d, %v; want EOF", n, err)
	}
}

// TestHandoffRefusal: a refused request is answered on the handed socket,
// and the refusal's decision is the usual one.
func TestHandoffRefusal(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.Policy = Policy{Mode: ModeProxy, Allow: nil} })
	client, f := tcpPair(t)
	handOver(t, w.serveUnix(), []byte{handoffMarker}, int(f.Fd()))
	f.Close()
	client.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(client, "CONNECT denied.test:443 HTTP/1.1\r\n\r\n")
	b, _ := io.ReadAll(client)
	if !strings.HasPrefix(string(b), "HTTP/1.1 403 ") {
		t.Errorf("refusal on the handed socket: %q; want a 403", b)
	}
	if d := w.lastEvent(1); d.Allowed || d.Host != "denied.test" {
		t.Errorf("decision %+v", d)
	}
}

// TestHandoffMalformed: whatever else comes with a descriptor (a pipe, a
// listening socket, a Unix socket, two sockets, a wrong marker) is closed
// and refused without reading from it; the proxy keeps serving.
func TestHandoffMalformed(t *testing.T) {
	w := newWorld(t, nil)
	path := w.serveUnix()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	lf, err := listen(t).(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	_, f1 := tcpPair(t)
	_, f2 := tcpPair(t)
	for _, tc := range []struct {
		name string
		data []byte
		fds  []int
	}{
		{"a pipe", []byte{handoffMarker}, []int{p[0]}},
		{"a listening socket", []byte{handoffMarker}, []int{int(lf.Fd())}},
		{"a Unix socket", []byte{handoffMarker}, []int{sp[0]}},
		{"two sockets", []byte{handoffMarker}, []int{int(f1.Fd()), int(f2.Fd())}},
		{"no marker", []byte("GET / HTTP/1.1\r\n\r\n"), []int{int(f1.Fd())}},
	} {
		u := handOver(t, path, tc.data, tc.fds...)
		u.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(u)
		if !strings.HasPrefix(string(b), "HTTP/1.1 400 ") {
			t.Errorf("%s: %q; want a 400 and the connection closed", tc.name, b)
		}
	}
	// A client that sends no descriptor is served as a plain client.
	u, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(u, "GET http://origin.test:%d/path HTTP/1.1\r\nHost: origin.test:%d\r\n\r\n", w.oport, w.oport)
	u.(*net.UnixConn).CloseWrite()
	if b, _ := io.ReadAll(u); !strings.HasPrefix(string(b), "HTTP/1.1 200 ") || !strings.HasSuffix(string(b), "hello from /path") {
		t.Errorf("a plain client on the Unix socket after the malformed handoffs: %q", b)
	}
}

// TestHandoffBusyAnswersMember: a handed socket that waits past
// QueueTimeout, or arrives with the queue full, gets the 503 naming the
// limit on the member's own socket. The proxy used to write it to the
// bridge's Unix connection and close that, so the member saw only a reset
// where the README promises a 503 that says why.
func TestHandoffBusyAnswersMember(t *testing.T) {
	w := newWorld(t, func(c *Config) {
		c.MaxConns, c.MaxQueue = 1, 1
		c.QueueTimeout = 300 * time.Millisecond
		c.HeaderTimeout = 10 * time.Second
	})
	path := w.serveUnix()
	hand := func() net.Conn {
		client, f := tcpPair(t)
		handOver(t, path, []byte{handoffMarker}, int(f.Fd()))
		f.Close()
		return client
	}
	hand() // holds the slot, silent
	waiting := hand()
	waitFor(t, func() bool { return w.proxy.queued.Load() == 1 })
	over := hand()
	for _, x := range []struct {
		c    net.Conn
		name string
		why  string
	}{{over, "over the queue", "1 more already waiting"}, {waiting, "queued", "waited 300ms for a free one"}} {
		x.c.SetDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(x.c)
		if statusOfReply(string(b)) != 503 || !strings.Contains(string(b), x.why) {
			t.Errorf("%s: the member read %q; want a 503 naming %q", x.name, b, x.why)
		}
	}
}

// TestHandoffOneHeadDeadline: a client of the Unix socket that sends the
// descriptor late gets what is left of HeaderTimeout for the head on it,
// not a second HeaderTimeout (a slot held twice as long as documented).
func TestHandoffOneHeadDeadline(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.HeaderTimeout = 600 * time.Millisecond })
	path := w.serveUnix()
	client, f := tcpPair(t)
	u, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	time.Sleep(400 * time.Millisecond) // most of the head's time spent before the handoff
	if _, _, err := u.(*net.UnixConn).WriteMsgUnix([]byte{handoffMarker}, unix.UnixRights(int(f.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	start := time.Now()
	client.SetDeadline(time.Now().Add(5 * time.Second))
	io.ReadAll(client) // silent: the proxy gives up on the head and closes
	if el := time.Since(start); el > 450*time.Millisecond {
		t.Errorf("the silent handed socket was closed %v after the handoff; want within what was left of 600ms (about 200ms)", el)
	}
}
