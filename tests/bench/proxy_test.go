//go:build bench

package bench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/bridge"
	"github.com/acbox/acbox/egress"
)

// path is the member's way out, without the sandbox around it: a client on
// loopback -> the bridge (as in pid 1) -> the proxy's Unix socket -> the
// proxy -> an origin on loopback. The proxy's classifier is injected to
// treat loopback as public: this is a benchmark, never a production path.
type path struct {
	origin string // sink/echo origin address
	web    string // plain HTTP origin address
	bridge string // where a member would dial 127.0.0.1:3128
}

func newPath(t *testing.T) path {
	origin := listenTCP(t)
	go serveOrigin(origin)
	web := listenTCP(t)
	go serveWeb(web)
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	pl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p := egress.New(egress.Config{Policy: egress.Policy{Mode: egress.ModeProxy, AllowAny: true},
		IsPublic: func(netip.Addr) (bool, string) { return true, "" }})
	go p.Serve(pl)
	t.Cleanup(func() { p.Close() })
	bl := listenTCP(t)
	go bridge.Serve(bl, func() (net.Conn, error) { return net.Dial("unix", sock) })
	t.Cleanup(func() { bl.Close() })
	return path{origin: origin.Addr().String(), web: web.Addr().String(), bridge: bl.Addr().String()}
}

func listenTCP(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// serveOrigin answers each connection: "s" discards until EOF then says
// "done"; "e" echoes one byte.
func serveOrigin(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			b := make([]byte, 1)
			if _, err := io.ReadFull(c, b); err != nil {
				return
			}
			if b[0] == 'e' {
				c.Write(b)
				io.Copy(io.Discard, c)
				return
			}
			io.Copy(io.Discard, c)
			c.Write([]byte("done"))
		}()
	}
}

func (p path) dial(t *testing.T, via bool) net.Conn {
	if !via {
		c, err := net.Dial("tcp4", p.origin)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, err := net.Dial("tcp4", p.bridge)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", p.origin, p.origin)
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, " 200 ") {
		t.Fatalf("CONNECT: %q %v", line, err)
	}
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if l == "\r\n" {
			break
		}
	}
	return c
}

func (p path) throughput(t *testing.T, via bool, size int) float64 {
	c := p.dial(t, via)
	defer c.Close()
	buf := make([]byte, 256<<10)
	start := time.Now()
	c.Write([]byte("s"))
	for sent := 0; sent < size; sent += len(buf) {
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	c.(interface{ CloseWrite() error }).CloseWrite()
	io.ReadAll(c)
	return float64(size) / time.Since(start).Seconds() / (1 << 20)
}

func (p path) setup(t *testing.T, via bool) time.Duration {
	start := time.Now()
	c := p.dial(t, via)
	c.Write([]byte("e"))
	b := make([]byte, 1)
	io.ReadFull(c, b)
	d := time.Since(start)
	c.Close()
	return d
}

// TestProxyPath prints each proxied figure beside its direct-loopback twin,
// measured interleaved in the same run: medians of 5 rounds with the
// spread (min-max of the 5) for the ratios of issue 15.
func TestProxyPath(t *testing.T) {
	p := newPath(t)
	const size = 512 << 20
	var direct, tunnel, hdirect, hproxy, ratio, hratio []float64
	for i := 0; i < 5; i++ {
		d, v := p.throughput(t, false, size), p.throughput(t, true, size)
		hd, hv := p.httpThroughput(t, false, size), p.httpThroughput(t, true, size)
		direct, tunnel, hdirect, hproxy = append(direct, d), append(tunnel, v), append(hdirect, hd), append(hproxy, hv)
		ratio, hratio = append(ratio, v/d), append(hratio, hv/hd)
	}
	var added []float64
	var ds, ts []time.Duration
	for i := 0; i < 5; i++ {
		var rd, rt []time.Duration
		for j := 0; j < 200; j++ {
			rd = append(rd, p.setup(t, false))
			rt = append(rt, p.setup(t, true))
		}
		ds, ts = append(ds, median(rd)), append(ts, median(rt))
		added = append(added, ms(median(rt)-median(rd)))
	}
	fmt.Printf("egress path (client -> bridge -> unix socket -> proxy -> origin) vs direct loopback; %s\n", machine())
	fmt.Printf("  CONNECT bulk (512 MiB up): direct %.0f MiB/s, tunnel %.0f MiB/s; ratio median of 5 %s (target >= 0.80)\n",
		medianF(direct), medianF(tunnel), spread(ratio))
	fmt.Printf("  plain-HTTP bulk (GET, 512 MiB Content-Length body): direct %.0f MiB/s, proxy %.0f MiB/s; ratio median of 5 %s (target >= 0.70)\n",
		medianF(hdirect), medianF(hproxy), spread(hratio))
	fmt.Printf("  new connection + 1-byte echo (median of 200, 5 rounds): direct %.3f ms, tunnel %.3f ms; added median of 5 %s ms (target <= 0.25)\n",
		ms(median(ds)), ms(median(ts)), spread(added))
	flood(t, p, 1000)
	fmt.Printf("  proxy+bridge memory with 256 idle tunnels: %.1f MiB (heap in use + stacks; target < 20 MiB)\n", idleTunnels(t, p, 256))
}

// spread prints a median with the min-max of its samples.
func spread(s []float64) string {
	c := append([]float64{}, s...)
	sort.Float64s(c)
	return fmt.Sprintf("%.2f (%.2f-%.2f)", c[len(c)/2], c[0], c[len(c)-1])
}

func idleTunnels(t *testing.T, p path, n int) float64 {
	base := inUse()
	var cs []net.Conn
	for i := 0; i < n; i++ {
		c := p.dial(t, true)
		c.Write([]byte("e"))
		b := make([]byte, 1)
		io.ReadFull(c, b)
		cs = append(cs, c)
	}
	time.Sleep(200 * time.Millisecond)
	used := inUse() - base
	for _, c := range cs {
		c.Close()
	}
	// The test's own client ends and the origin's handlers are counted too;
	// this overstates the proxy and bridge, never understates them.
	return float64(used) / (1 << 20)
}

func inUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func medianF(s []float64) float64 {
	c := append([]float64{}, s...)
	sort.Float64s(c)
	return c[len(c)/2]
}
