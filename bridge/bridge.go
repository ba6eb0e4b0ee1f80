package bridge

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Addr is where the bridge listens inside the sandbox.
const Addr = "127.0.0.1:3128"

// Listen listens on Addr with plain TCP: Multipath TCP is off because
// Landlock's TCP rules do not cover it.
func Listen() (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(context.Background(), "tcp4", Addr)
}

// FirstByteTimeout bounds the wait for a client's first byte. Only then is
// the proxy dialed, so a connection that is opened and dropped, or opened
// and left silent, never takes one of the proxy's connection slots.
const FirstByteTimeout = 30 * time.Second

// MaxRelays caps the bridge's open relays. Past it a client is answered 503
// at once, so pid 1 never runs out of descriptors (its accept loop would
// then stall) however many connections the member holds open. The proxy
// behind the bridge has its own, lower cap (egress.Config.MaxConns).
const MaxRelays = 1024

// The limits Serve uses; tests shorten them. The first-byte wait is read
// by relays that may outlive a test's Serve, hence atomic (0: the default).
var (
	maxRelays      = MaxRelays
	firstByteShort atomic.Int64
)

func firstByteTimeout() time.Duration {
	if d := firstByteShort.Load(); d > 0 {
		return time.Duration(d)
	}
	return FirstByteTimeout
}

// Serve passes every connection accepted on ln to a fresh connection from
// dial: handed over when dial gives a Unix socket (see handOff; the slot is
// held until the proxy closes that socket), else relayed both ways. It runs
// until ln is closed (then it returns nil, leaving relays
// already running to finish on their own). A client that closes before
// sending anything, or sends nothing within FirstByteTimeout, is closed
// without a dial. A failed dial answers that client 502, a client over
// MaxRelays 503, and closes that client only.
func Serve(ln net.Listener, dial func() (net.Conn, error)) error {
	slots := make(chan struct{}, maxRelays)
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			if isTemporary(err) { // EMFILE and the like: wait for a close
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		select {
		case slots <- struct{}{}:
			go func() { defer func() { <-slots }(); relay(c, dial) }()
		default:
			go answer(c, http503, "acbox: too many open connections to the proxy ("+strconv.Itoa(maxRelays)+"); close some and retry")
		}
	}
}

func relay(c net.Conn, dial func() (net.Conn, error)) {
	defer c.Close()
	if !firstByte(c) {
		return
	}
	up, err := dial()
	if err != nil {
		answer(c, http502, "acbox: the egress proxy cannot be reached")
		return
	}
	defer up.Close()
	switch handOff(c, up) {
	case handed:
		// The proxy holds the socket now. This copy must go, or the
		// client would not see the proxy's close; the relay's slot is
		// held until the proxy is done with the socket and closes up.
		c.Close()
		awaitClose(up)
		return
	case handFailed:
		answer(c, http502, "acbox: the egress proxy cannot be reached")
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyHalf(up, c) }()
	go func() { defer wg.Done(); copyHalf(c, up) }()
	wg.Wait()
}

// awaitClose returns once the proxy closes up. The proxy sends nothing on
// it after a handoff, so a one-byte read is enough; io.Copy to io.Discard
// would hold an 8 KiB buffer for the life of every idle tunnel (2 MiB for
// 256 of them).
func awaitClose(up net.Conn) {
	var b [1]byte
	for {
		if _, err := up.Read(b[:]); err != nil {
			return
		}
	}
}

// What handOff did.
const (
	notHanded  = iota // not a pair that can be handed: relay the bytes
	handed            // the proxy has the client's socket
	handFailed        // the proxy's socket failed: answer 502
)

// HandoffMarker is the one data byte that carries the client's socket to
// the proxy (SCM_RIGHTS needs at least one byte). The proxy tells a handoff
// by the descriptor, and checks the byte too; a request never starts with
// NUL.
const HandoffMarker = 0

const (
	http502 = "502 Bad Gateway"
	http503 = "503 Service Unavailable"
)

// answer tells an HTTP client why the bridge cannot relay it, then closes
// the connection without a reset: the request bytes are drained briefly
// first, so the client reads the answer.
func answer(c net.Conn, status, msg string) {
	defer c.Close()
	body := msg + "\n"
	c.SetWriteDeadline(time.Now().Add(time.Second))
	io.WriteString(c, "HTTP/1.1 "+status+"\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Content-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
	io.CopyN(io.Discard, c, 64<<10)
}

// copyHalf copies src to dst and passes the end of stream on with
// CloseWrite, so a client that half-closes still gets its answer. On an
// error both ends are closed, which ends the other direction too.
func copyHalf(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if err != nil {
		dst.Close()
		src.Close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		dst.Close()
	}
}

func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
