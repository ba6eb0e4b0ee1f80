//go:build bench

package bench

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// serveRelay is the floor the proxy is measured against: the least a
// user-space relay does for one exchange, in the same process and on the
// same loopback. It reads one request head (CONNECT, or a GET in absolute
// form), dials the origin it names, and copies both ways through pooled
// 1 MiB buffers, as the proxy's copy loops do, passing each end on with
// CloseWrite. No bridge hop, no socket handoff, no policy, no framing:
// the proxy's figure minus this one is what those cost. A benchmark
// fixture, never a production path: it dials whatever it is asked.
func serveRelay(t *testing.T) string {
	ln := listenTCP(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go relayOne(c)
		}
	}()
	return ln.Addr().String()
}

func relayOne(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	host := req.Host
	if req.Method != http.MethodConnect {
		host = req.URL.Host
	}
	up, err := net.Dial("tcp4", host)
	if err != nil {
		return
	}
	defer up.Close()
	if req.Method == http.MethodConnect {
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	} else {
		req.RequestURI = ""
		req.Write(up)
	}
	done := make(chan struct{})
	go func() { defer close(done); relayCopy(c, up) }()
	if n := br.Buffered(); n > 0 {
		early, _ := br.Peek(n)
		up.Write(early)
	}
	relayCopy(up, c)
	<-done
}

var relayBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// relayCopy copies src to dst one read and one write at a time (no
// splice, no ReaderFrom), then passes the end on.
func relayCopy(dst, src net.Conn) {
	bp := relayBufs.Get().(*[]byte)
	defer relayBufs.Put(bp)
	for {
		n, err := src.Read(*bp)
		if n > 0 {
			if _, werr := dst.Write((*bp)[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	dst.(*net.TCPConn).CloseWrite()
}
