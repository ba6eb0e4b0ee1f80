package bridge

import (
	"net"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDialerOutlivesGC: pid 1 opens the proxy socket's O_PATH descriptor as
// an *os.File and keeps only the dialer. A dialer that holds the bare number
// lets the file's finalizer close the descriptor at the next collection
// (the number is then reused, by a splice pipe for one), and every later
// connection through the bridge is refused: a burst of connections made the
// collection happen and left the sandbox's network dead.
func TestDialerOutlivesGC(t *testing.T) {
	path := upstream(t)
	dial := func() func() (net.Conn, error) {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return DialFile(os.NewFile(uintptr(fd), "proxy"))
	}()
	for range 3 {
		runtime.GC()
	}
	// Reuse freed numbers, as the bridge's splice pipes did.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err == nil {
		defer unix.Close(p[0])
		defer unix.Close(p[1])
	}
	c, err := dial()
	if err != nil {
		t.Fatalf("dial after a collection: %v", err)
	}
	c.Close()
}
