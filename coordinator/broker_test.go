package coordinator

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestRecvRequestDeadline: a member connects to the broker, sends a length
// header promising 100 bytes and nothing more, and passes the connection's
// own client end as its stdin, so the broker, holding that end, would
// never see EOF. The request is refused as malformed once the body
// deadline passes, naming the promised length, and the descriptor that is
// a connection to the broker is refused too.
func TestRecvRequestDeadline(t *testing.T) {
	defer func(h, b time.Duration) { headerWait, bodyWait = h, b }(headerWait, bodyWait)
	headerWait, bodyWait = time.Second, 200*time.Millisecond
	path := filepath.Join(t.TempDir(), "broker.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	self, err := client.File()
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	header := binary.BigEndian.AppendUint32(nil, 100)
	oob := unix.UnixRights(int(self.Fd()), int(os.Stdout.Fd()), int(os.Stderr.Fd()))
	if _, _, err := client.WriteMsgUnix(header, oob, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, files, err := recvRequest(server)
	for _, f := range files {
		defer f.Close()
	}
	if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "promised 100 bytes and 0 came") {
		t.Fatalf("err %v, want a refusal (status 2) naming the promised length", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to give up", d)
	}
	b := &broker{path: path}
	if err := b.refuseOwnEnds(files); err == nil || !strings.Contains(err.Error(), "descriptor 0 of the request is a connection to the broker itself") {
		t.Errorf("the connection's own end passed as stdin: %v", err)
	}
	if err := b.refuseOwnEnds(files[1:]); err != nil {
		t.Errorf("stdout and stderr refused: %v", err)
	}
}

// TestBrokerEndClosesRequests: end returns promptly while a request is
// still being read (nobody will send the rest), and refuses new ones.
func TestBrokerEndClosesRequests(t *testing.T) {
	defer func(b time.Duration) { bodyWait = b }(bodyWait)
	bodyWait = time.Minute // end must not rely on the deadline
	dir := t.TempDir()
	b, err := startBroker(&Launcher{Host: policy.Host{StateDir: dir}}, "test", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	go b.serve(&policy.Plan{})
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: b.path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	oob := unix.UnixRights(int(os.Stdin.Fd()), int(os.Stdout.Fd()), int(os.Stderr.Fd()))
	if _, _, err := c.WriteMsgUnix(binary.BigEndian.AppendUint32(nil, 100), oob, nil); err != nil { // a header, no body
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- b.end() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("end: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("end is still waiting for a request that will never arrive")
	}
}

// TestInheritBackend: a child that names no backend, or auto, gets its
// requester's; one it names is kept for policy.Narrower to judge.
func TestInheritBackend(t *testing.T) {
	for _, c := range []struct{ asked, parent, want string }{
		{"", "native", "native"},
		{"auto", "native", "native"},
		{"", "docker", "docker"},
		{"auto", "docker", "docker"},
		{"docker", "native", "docker"},
		{"native", "docker", "native"},
	} {
		if got := inheritBackend(c.asked, c.parent); got != c.want {
			t.Errorf("inheritBackend(%q, %q) = %q, want %q", c.asked, c.parent, got, c.want)
		}
	}
}
