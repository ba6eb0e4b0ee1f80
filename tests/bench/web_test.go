//go:build bench

package bench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveWeb is a plain HTTP origin: "GET /bulk/N" answers N bytes framed by
// Content-Length, written 256 KiB at a time; "GET /slow" answers after
// 20 ms, so simultaneous requests overlap.
func serveWeb(ln net.Listener) {
	chunk := make([]byte, 256<<10)
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err != nil {
				return
			}
			if n, ok := strings.CutPrefix(req.URL.Path, "/bulk/"); ok {
				size, _ := strconv.Atoi(n)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", size)
				for left := size; left > 0; left -= len(chunk) {
					if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
						return
					}
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		}()
	}
}

// get sends one GET for urlPath, directly (origin form, via "") or
// through the proxy at via (absolute form), and returns the response with
// the body unread.
func (p path) get(via string, urlPath string, bufSize int) (net.Conn, *http.Response, error) {
	addr, target := p.web, urlPath
	if via != "" {
		addr, target = via, "http://"+p.web+urlPath
	}
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, p.web)
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, bufSize), nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, resp, nil
}

// httpThroughput downloads size bytes with one GET, in MiB/s.
func (p path) httpThroughput(t *testing.T, via string, size int) float64 {
	start := time.Now()
	c, resp, err := p.get(via, "/bulk/"+strconv.Itoa(size), 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := io.CopyBuffer(io.Discard, resp.Body, make([]byte, 256<<10))
	if err != nil || n != int64(size) {
		t.Fatalf("GET /bulk: %d bytes, %v", n, err)
	}
	return float64(size) / time.Since(start).Seconds() / (1 << 20)
}

// flood sends n GETs at once through the proxy (whose cap is 256: the rest
// wait in its queue) and then directly, and prints what was answered, the
// wall time, and this process's resident memory (it holds the client, the
// bridge, the proxy and the origin).
func flood(t *testing.T, p path, n int) {
	before := rssKiB()
	var lines []string
	for _, via := range []string{p.bridge, ""} {
		var ok, refused, failed atomic.Int64
		var sample atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, resp, err := p.get(via, "/slow", 4096)
				switch {
				case err != nil:
					failed.Add(1)
					return
				case resp.StatusCode == 200:
					ok.Add(1)
				default:
					refused.Add(1)
					b, _ := io.ReadAll(resp.Body)
					sample.Store(resp.Status + ": " + strings.TrimSpace(string(b)))
				}
				io.Copy(io.Discard, resp.Body)
				c.Close()
			}()
		}
		wg.Wait()
		name := map[bool]string{true: "proxy", false: "direct"}[via != ""]
		lines = append(lines, fmt.Sprintf("%s %d/%d answered 200, %d refused, %d failed in %.0f ms",
			name, ok.Load(), n, refused.Load(), failed.Load(), ms(time.Since(start))))
		if s, _ := sample.Load().(string); s != "" {
			lines = append(lines, "a refusal: "+s)
		}
	}
	fmt.Printf("  %d simultaneous GETs (origin holds each 20 ms): %s (target: all served)\n", n, strings.Join(lines, "; "))
	fmt.Printf("  RSS of the bench process (client, bridge, proxy, origin): %d MiB before, %d MiB after, peak %s\n",
		before>>10, rssKiB()>>10, status(os.Getpid(), "VmHWM"))
}

func rssKiB() int {
	v := strings.TrimSuffix(status(os.Getpid(), "VmRSS"), " kB")
	n, _ := strconv.Atoi(strings.TrimSpace(v))
	return n
}
