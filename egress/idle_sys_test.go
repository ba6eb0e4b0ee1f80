//go:build linux

package egress

import (
	"net"
	"testing"
	"time"
)

// loopbackPair is a connected TCP pair on loopback: a is the dialled end,
// b the accepted one.
func loopbackPair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if b, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestWaitReadableWaits: on an idle socket waitReadable parks until a byte
// arrives (the peek's EAGAIN, wrapped by the syscall layer, must still be
// recognised as "nothing yet"), and leaves the byte to be read.
func TestWaitReadableWaits(t *testing.T) {
	a, b := loopbackPair(t)
	done := make(chan struct{})
	go func() { waitReadable(b); close(done) }()
	select {
	case <-done:
		t.Fatal("waitReadable returned on an idle socket")
	case <-time.After(100 * time.Millisecond):
	}
	a.Write([]byte("x"))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("waitReadable did not return once a byte arrived")
	}
	buf := make([]byte, 1)
	if n, err := b.Read(buf); n != 1 || buf[0] != 'x' {
		t.Fatalf("the byte was consumed: %d %v", n, err)
	}
}

// TestTCPActivityCounts: the kernel's counter moves with the bytes.
func TestTCPActivityCounts(t *testing.T) {
	a, b := loopbackPair(t)
	count := tcpActivity(b)
	if count == nil {
		t.Fatal("no counter for a TCP socket")
	}
	before := count()
	a.Write([]byte("hello"))
	b.Read(make([]byte, 5))
	deadline := time.Now().Add(5 * time.Second)
	for count() < before+5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := count(); got < before+5 {
		t.Fatalf("counter %d after 5 bytes, was %d", got, before)
	}
}
