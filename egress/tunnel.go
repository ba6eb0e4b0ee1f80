package egress

import (
	"bufio"
	"bytes"
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
	var fromClient io.Reader = c
	if n := br.Buffered(); n > 0 {
		// The client sent tunnel bytes right behind the request head.
		early, _ := br.Peek(n)
		fromClient = io.MultiReader(bytes.NewReader(early), c)
	}
	w := newWatchdog(p.cfg.IdleTimeout, func() { c.Close(); up.Close() })
	defer w.stop()
	pipe(c, fromClient, up, w)
}

// pipe copies client->up and up->client, passing each end-of-stream on with
// CloseWrite, and returns when both directions have ended (as httputil's
// ReverseProxy does for upgraded connections). An error in one direction
// closes both.
func pipe(client net.Conn, fromClient io.Reader, up net.Conn, w *watchdog) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyHalf(up, fromClient, w) }()
	go func() { defer wg.Done(); copyHalf(client, up, w) }()
	wg.Wait()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyHalf copies src to dst, touching the watchdog on every read. It does
// not use io.Copy: splice would be faster but would hide the traffic from
// the idle timer. The buffer is taken only once src is readable.
func copyHalf(dst net.Conn, src io.Reader, w *watchdog) {
	for {
		waitReadable(src)
		err := copyOnce(dst, src, w)
		if err == io.EOF {
			closeWrite(dst)
			return
		}
		if err != nil {
			w.fire()
			return
		}
	}
}

// copyOnce moves the result of one Read from src to dst.
func copyOnce(dst net.Conn, src io.Reader, w *watchdog) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	n, err := src.Read(*bp)
	if n > 0 {
		w.touch()
		if _, werr := dst.Write((*bp)[:n]); werr != nil {
			return werr
		}
	}
	return err
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
// exchange, re-armed lazily: touch is a single atomic store.
type watchdog struct {
	idle   time.Duration
	last   atomic.Int64 // nanoseconds since epoch
	onIdle func()
	once   sync.Once

	mu      sync.Mutex // guards t and stopped against the timer's goroutine
	t       *time.Timer
	stopped bool
}

func newWatchdog(idle time.Duration, onIdle func()) *watchdog {
	w := &watchdog{idle: idle, onIdle: onIdle}
	w.touch()
	w.mu.Lock()
	w.t = time.AfterFunc(idle, w.check)
	w.mu.Unlock()
	return w
}

func (w *watchdog) touch() { w.last.Store(int64(time.Since(epoch))) }

func (w *watchdog) check() {
	quiet := time.Since(epoch) - time.Duration(w.last.Load())
	if quiet >= w.idle {
		w.fire()
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Reset(w.idle - quiet)
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
