package bridge

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
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

// Serve relays every connection accepted on ln to a fresh connection from
// dial, both ways, until ln is closed (then it returns nil, leaving relays
// already running to finish on their own). A failed dial closes that client
// connection only.
func Serve(ln net.Listener, dial func() (net.Conn, error)) error {
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
		go relay(c, dial)
	}
}

func relay(c net.Conn, dial func() (net.Conn, error)) {
	defer c.Close()
	up, err := dial()
	if err != nil {
		return
	}
	defer up.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyHalf(up, c) }()
	go func() { defer wg.Done(); copyHalf(c, up) }()
	wg.Wait()
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
