package egress

import (
	"bufio"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// serveConnect answers 200 and copies bytes both ways until both directions
// have ended.
func (p *Proxy) serveConnect(c net.Conn, br *bufio.Reader, up net.Conn) {
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	w := newWatchdog(p.cfg.IdleTimeout, tcpActivity(up), func() { c.Close(); up.Close() })
	defer w.stop()
	if n := br.Buffered(); n > 0 {
		// The client sent tunnel bytes right behind the request head.
		early, _ := br.Peek(n)
		if _, err := up.Write(early); err != nil {
			return
		}
		w.touch()
	}
	pipe(c, up, w)
}

// pipe copies client->up and up->client, passing each end-of-stream on with
// CloseWrite, and returns when both directions have ended (as httputil's
// ReverseProxy does for upgraded connections). An error in one direction
// closes both.
func pipe(client, up net.Conn, w *watchdog) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyHalf(up, client, w) }()
	go func() { defer wg.Done(); copyHalf(client, up, w) }()
	wg.Wait()
}

// copyHalf copies src to dst until src ends, one read at a time through a
// buffer taken only while bytes move (see copyLoop). It copies rather than
// splices: with the member's socket handed over, a tunnel is one relay from
// TCP to TCP, and on the measured VM a 1 MiB buffer moved 0.85 of direct
// loopback where splice(2) through a 1 MiB pipe moved 0.57 (measured, not
// explained; docs/design.md, "The bridge hands the member's socket to the
// proxy").
func copyHalf(dst, src net.Conn, w *watchdog) {
	if err := copyLoop(dst, src, w); err != nil {
		w.fire()
		return
	}
	closeWrite(dst)
}

// copyLoop copies src to dst one read at a time. The buffer is taken only
// once src is readable, so an idle tunnel holds none.
func copyLoop(dst, src net.Conn, w *watchdog) error {
	for {
		waitReadable(src)
		err := copyOnce(dst, src, w)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// copyOnce moves the result of one Read from src to dst.
func copyOnce(dst net.Conn, src io.Reader, w *watchdog) error {
	_, err := copyOnceN(dst, src, -1, w)
	return err
}

// copyOnceN moves the result of one Read of at most max bytes (no limit
// when max < 0) from src to dst, and says how many it moved.
func copyOnceN(dst net.Conn, src io.Reader, max int64, w *watchdog) (int64, error) {
	bp, put := takeBuf()
	defer put()
	b := *bp
	if max >= 0 && int64(len(b)) > max {
		b = b[:max]
	}
	n, err := src.Read(b)
	if n > 0 {
		w.touch()
		if _, werr := dst.Write(b[:n]); werr != nil {
			return int64(n), werr
		}
	}
	return int64(n), err
}

// closeWrite passes end-of-stream on; a conn without half-close is closed.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// epoch makes watchdog times monotonic.
var epoch = time.Now()

// watchdog calls onIdle once no byte has moved for idle. One timer per
// exchange, re-armed lazily: touch is a single atomic store. With a probe
// (a counter the kernel advances as bytes move, see tcpActivity) it also
// polls the counter every quarter of idle, so traffic the copy loop did not
// see (a write blocked for long) still counts; the exchange then ends between idle
// and 1.25 x idle after its last byte.
type watchdog struct {
	idle   time.Duration
	last   atomic.Int64 // nanoseconds since epoch
	onIdle func()
	once   sync.Once
	probe  func() uint64
	seen   uint64 // the probe's last value; only the timer's goroutine uses it

	mu      sync.Mutex // guards t and stopped against the timer's goroutine
	t       *time.Timer
	stopped bool
}

func newWatchdog(idle time.Duration, probe func() uint64, onIdle func()) *watchdog {
	w := &watchdog{idle: idle, onIdle: onIdle, probe: probe}
	if probe != nil {
		w.seen = probe()
	}
	w.touch()
	w.mu.Lock()
	w.t = time.AfterFunc(w.interval(idle), w.check)
	w.mu.Unlock()
	return w
}

func (w *watchdog) touch() { w.last.Store(int64(time.Since(epoch))) }

// interval is how long the timer sleeps when quiet for left more.
func (w *watchdog) interval(left time.Duration) time.Duration {
	if w.probe != nil && left > w.idle/4 {
		return w.idle / 4
	}
	return left
}

func (w *watchdog) check() {
	if w.probe != nil {
		if v := w.probe(); v != w.seen {
			w.seen = v
			w.touch()
		}
	}
	quiet := time.Since(epoch) - time.Duration(w.last.Load())
	if quiet >= w.idle {
		w.fire()
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Reset(w.interval(w.idle - quiet))
	}
}

// fire closes the exchange (idle, or an error in one direction).
func (w *watchdog) fire() { w.once.Do(w.onIdle) }

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.t.Stop()
}
