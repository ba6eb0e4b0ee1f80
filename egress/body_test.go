package egress

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bodies framed by Content-Length are relayed with splice(2); these tests
// hold them to the bytes and the framing, on the production shape (clients
// on a Unix socket, origins on TCP) and on TCP.

// rawOrigin answers every connection with handle, after reading the request
// head (and giving handle the reader, for the body).
func rawOrigin(t *testing.T, handle func(c net.Conn, br *bufio.Reader, req *http.Request)) int {
	ln := listen(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				handle(c, br, req)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// unixDialer serves w's proxy on a Unix socket too, as the launcher does,
// and returns a dialer for it.
func (w *world) unixDialer(t *testing.T) func() (net.Conn, error) {
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go w.proxy.Serve(ln)
	return func() (net.Conn, error) { return net.Dial("unix", sock) }
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// TestLengthBodiesExact: an 8 MiB download and an 8 MiB upload arrive byte
// for byte, over a Unix and a TCP client socket; bytes an origin sends past
// its Content-Length never reach the client, and an origin that keeps its
// connection open after the body does not hold the exchange.
func TestLengthBodiesExact(t *testing.T) {
	w := newWorld(t, nil)
	body := pattern(8<<20 + 123)
	got := make(chan [32]byte, 4)
	port := rawOrigin(t, func(c net.Conn, br *bufio.Reader, req *http.Request) {
		if req.Method == http.MethodPut {
			h := sha256.New()
			io.Copy(h, req.Body)
			got <- [32]byte(h.Sum(nil))
			io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Kept: yes\r\n\r\n", len(body))
		c.Write(body)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nextra") // past the body: a smuggled reply
		time.Sleep(10 * time.Second)                                           // and the connection stays open
	})
	dials := map[string]func() (net.Conn, error){
		"unix": w.unixDialer(t),
		"tcp":  func() (net.Conn, error) { return net.Dial("tcp", w.addr) },
	}
	for name, dial := range dials {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		fmt.Fprintf(c, "GET http://127.0.0.1:%d/f HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port, port)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := io.ReadAll(resp.Body)
		rest, _ := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(b, body) || len(rest) != 0 || resp.Header.Get("X-Kept") != "yes" || !resp.Close {
			t.Errorf("%s download: %d bytes (equal %v), %d after, header %v, err %v", name, len(b), bytes.Equal(b, body), len(rest), resp.Header, err)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("%s download took %v: the exchange waited on the origin's open connection", name, el)
		}
		c.Close()

		c, _ = dial()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "PUT http://127.0.0.1:%d/u HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: %d\r\n\r\n", port, port, len(body))
		c.Write(body)
		reply, _ := io.ReadAll(c)
		c.Close()
		if statusOfReply(string(reply)) != 204 {
			t.Errorf("%s upload: %q", name, reply)
			continue
		}
		if sum := <-got; sum != sha256.Sum256(body) {
			t.Errorf("%s upload: the origin received other bytes", name)
		}
	}
}

// TestLengthBodyShortOrigin: an origin that closes before its Content-Length
// is reached leaves the client with a short body and a closed connection,
// never a hang or a body padded out.
func TestLengthBodyShortOrigin(t *testing.T) {
	w := newWorld(t, nil)
	port := rawOrigin(t, func(c net.Conn, _ *bufio.Reader, _ *http.Request) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"+strings.Repeat("s", 5000))
	})
	c, err := w.unixDialer(t)()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port, port)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if len(b) != 5000 || err != io.ErrUnexpectedEOF {
		t.Errorf("short origin: %d bytes, %v; want 5000 and an unexpected EOF", len(b), err)
	}
}

// TestLengthUploadShortClient: a client that half-closes before its
// Content-Length is sent does not make the origin see a complete body.
func TestLengthUploadShortClient(t *testing.T) {
	w := newWorld(t, nil)
	got := make(chan int, 1)
	port := rawOrigin(t, func(c net.Conn, _ *bufio.Reader, req *http.Request) {
		n, err := io.Copy(io.Discard, req.Body)
		if err != nil {
			n = -n - 1
		}
		got <- int(n)
	})
	c, err := w.unixDialer(t)()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "PUT http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 100000\r\n\r\n%s", port, port, strings.Repeat("u", 7000))
	start := time.Now()
	c.(*net.UnixConn).CloseWrite()
	select {
	case n := <-got:
		if n >= 0 {
			t.Errorf("origin read a complete body of %d bytes; want a truncated one", n)
		}
	case <-time.After(4 * time.Second):
		t.Error("the origin was left waiting for the rest of the body")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the origin saw the short body after %v; want at once, not at the idle timeout", el)
	}
}
