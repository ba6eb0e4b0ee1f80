package egress

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
)

// Benchmarks on loopback. `make bench` compares each proxied benchmark with
// its direct twin: BenchmarkTunnelThroughput / BenchmarkDirectThroughput and
// BenchmarkConnectSetup / BenchmarkDirectSetup.

const benchChunk = 64 << 10

// sink accepts connections, discards what they send, and answers one byte
// per connection at EOF so the writer knows everything arrived.
func sink(b testing.TB) net.Listener {
	ln := listen(b)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(io.Discard, c)
				c.Write([]byte{1})
			}()
		}
	}()
	return ln
}

func benchProxy(b *testing.B) (proxyAddr string) {
	p := New(Config{Policy: Policy{Mode: ModeProxy, AllowAny: true}, IsPublic: testIsPublic})
	ln := listen(b)
	go p.Serve(ln)
	b.Cleanup(func() { p.Close() })
	return ln.Addr().String()
}

// dialThrough opens a CONNECT tunnel through proxy (or a direct connection
// when proxy is "").
func dialThrough(b testing.TB, proxy, target string) net.Conn {
	if proxy == "" {
		c, err := net.Dial("tcp", target)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", target)
	const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
	buf := make([]byte, len(ok))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != ok {
		b.Fatalf("CONNECT: %q, %v", buf, err)
	}
	return c
}

func throughput(b *testing.B, proxy string) {
	target := sink(b).Addr().String()
	c := dialThrough(b, proxy, target)
	defer c.Close()
	buf := make([]byte, benchChunk)
	b.SetBytes(benchChunk)
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	if _, err := io.ReadFull(c, buf[:1]); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkDirectThroughput(b *testing.B) { throughput(b, "") }

func BenchmarkTunnelThroughput(b *testing.B) { throughput(b, benchProxy(b)) }

// setup measures connect, one byte each way, close.
func setup(b *testing.B, proxy string) {
	ln := listen(b)
	go serveEcho(ln)
	target := ln.Addr().String()
	one := make([]byte, 1)
	b.ResetTimer()
	for range b.N {
		c := dialThrough(b, proxy, target)
		c.Write(one)
		if _, err := io.ReadFull(c, one); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func BenchmarkDirectSetup(b *testing.B) { setup(b, "") }

func BenchmarkConnectSetup(b *testing.B) { setup(b, benchProxy(b)) }

// BenchmarkIdleTunnels256 reports the memory (heap in use plus goroutine
// stacks) the proxy holds for 256 open idle tunnels, the default MaxConns:
// mem-bytes/tunnel is the growth with tunnels minus the growth with as many
// direct connections (which costs the test's own client and echo sides).
func BenchmarkIdleTunnels256(b *testing.B) {
	for range b.N {
		direct := heapFor(b, "")
		proxied := heapFor(b, benchProxy(b))
		b.ReportMetric(float64(proxied-direct)/256, "mem-bytes/tunnel")
		b.ReportMetric(float64(proxied)/(1<<20), "MiB-grown-with-proxy")
	}
}

// heapFor opens 256 idle connections (through proxy, or direct) and returns
// how much heap and stacks grew.
func heapFor(b *testing.B, proxy string) int64 {
	ln := listen(b)
	go serveEcho(ln)
	before := memInuse()
	conns := make([]net.Conn, 0, 256)
	for range 256 {
		c := dialThrough(b, proxy, ln.Addr().String())
		c.Write([]byte{0}) // make both copy loops take a buffer
		io.ReadFull(c, make([]byte, 1))
		conns = append(conns, c)
	}
	grown := int64(memInuse()) - int64(before)
	for _, c := range conns {
		c.Close()
	}
	ln.Close()
	return grown
}

func memInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
