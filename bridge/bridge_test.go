package bridge

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// upstream is a stand-in for the proxy's Unix socket: it takes the
// client's socket when the bridge hands it over (or reads the relayed
// bytes), reads until EOF, answers "got <data>", then half-closes.
func upstream(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	serveEach(t, ln, func(c net.Conn) {
		client, first := takeHanded(t, c.(*net.UnixConn))
		defer client.Close()
		b, _ := io.ReadAll(client)
		client.Write(append([]byte("got "), append(first, b...)...))
		client.(interface{ CloseWrite() error }).CloseWrite()
	})
	return path
}

// serveEach runs handle on each connection ln accepts, in a goroutine of
// its own, and closes the connection after it; ln closes with the test.
func serveEach(t *testing.T, ln net.Listener, handle func(net.Conn)) {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
}

// takeHanded reads the first message on c: a handed socket, returned as the
// client, or the first relayed bytes, returned with c.
func takeHanded(t *testing.T, c *net.UnixConn) (net.Conn, []byte) {
	buf, oob := make([]byte, 4096), make([]byte, 64)
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil || oobn == 0 {
		return c, buf[:n]
	}
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 || n != 1 || buf[0] != HandoffMarker {
		t.Errorf("handoff: %d descriptors, %q, %v", len(fds), buf[:n], err)
		return c, nil
	}
	f := os.NewFile(uintptr(fds[0]), "handed")
	defer f.Close()
	hc, err := net.FileConn(f)
	if err != nil {
		t.Errorf("handed socket: %v", err)
		return c, nil
	}
	return hc, nil
}

// exchange sends msg through the bridge at addr, half-closes, and returns the
// whole answer.
func exchange(t *testing.T, addr, msg string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, msg)
	c.(*net.TCPConn).CloseWrite()
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read through bridge: %v", err)
	}
	return string(b)
}

func TestServeHalfClose(t *testing.T) {
	path := upstream(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- Serve(ln, func() (net.Conn, error) { return net.Dial("unix", path) }) }()
	for _, tc := range []struct{ msg, want string }{
		{"hello", "got hello"},
		{"", ""}, // nothing sent: the proxy is never dialed
	} {
		if got := exchange(t, ln.Addr().String(), tc.msg); got != tc.want {
			t.Errorf("answer to %q: %q; want %q", tc.msg, got, tc.want)
		}
	}
	ln.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v; want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Serve did not return after the listener closed")
	}
}

func TestServeDialFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go Serve(ln, func() (net.Conn, error) { return nil, io.ErrUnexpectedEOF })
	for range 2 { // the bridge keeps serving after a failed dial
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET http://example.test/ HTTP/1.1\r\n\r\n")
		b, err := io.ReadAll(c)
		if errors.Is(err, os.ErrDeadlineExceeded) || !strings.HasPrefix(string(b), "HTTP/1.1 502 ") {
			t.Errorf("read %q, %v; want a 502 and the connection closed", b, err)
		}
		c.Close()
	}
}

// TestAwaitClose: after a handoff the bridge waits on the proxy's
// connection until the proxy closes it (that holds the relay slot), and
// stray bytes do not end the wait early.
func TestAwaitClose(t *testing.T) {
	bridgeEnd, proxyEnd := net.Pipe()
	done := make(chan struct{})
	go func() { awaitClose(bridgeEnd); close(done) }()
	proxyEnd.Write([]byte("xy"))
	select {
	case <-done:
		t.Fatal("returned before the proxy closed")
	case <-time.After(50 * time.Millisecond):
	}
	proxyEnd.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after the proxy closed")
	}
}
