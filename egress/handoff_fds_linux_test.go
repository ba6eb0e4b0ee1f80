package egress

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // the directory's own, open while it was read
}

// cmsgOfLen is a bare control message header (SCM_RIGHTS) whose length
// field says n: past the end of the buffer, it is malformed.
func cmsgOfLen(n int) []byte {
	b := make([]byte, unix.CmsgLen(0))
	if unix.SizeofCmsghdr-8 == 8 { // Len is the first field: 64 or 32 bits, then Level and Type
		binary.NativeEndian.PutUint64(b, uint64(n))
	} else {
		binary.NativeEndian.PutUint32(b, uint32(n))
	}
	binary.NativeEndian.PutUint32(b[unix.SizeofCmsghdr-8:], unix.SOL_SOCKET)
	binary.NativeEndian.PutUint32(b[unix.SizeofCmsghdr-4:], unix.SCM_RIGHTS)
	return b
}

// readAll reads c to its end within 5 s.
func readAll(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	return string(b)
}

// dups returns n fresh descriptors of a pipe's read end, for a test to
// pass to code that must close them.
func dups(t *testing.T, n int) []int {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	fds := make([]int, n)
	for i := range fds {
		fd, err := unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		fds[i] = fd
	}
	return fds
}

// A control buffer whose second message is malformed (its length runs
// past the buffer) still yields the descriptors before it, so they can be
// closed: ParseSocketControlMessage returned none of them, and they leaked.
func TestRightsBeforeAMalformedMessage(t *testing.T) {
	fds := dups(t, 1)
	defer unix.Close(fds[0])
	got, err := rights(append(unix.UnixRights(fds...), cmsgOfLen(1<<10)...))
	if err == nil || len(got) != 1 || got[0] != fds[0] {
		t.Fatalf("rights = %v, %v; want [%d] and an error", got, err, fds[0])
	}
}

// TestHandedFDClosesTheRest: whatever a handoff message carries, every
// descriptor received is closed unless it is the one a well-formed
// handoff hands over; a truncated message is a failed handoff, 503 when
// the kernel stopped short (the proxy at its limit), 400 when the sender
// sent more than the buffer holds.
func TestHandedFDClosesTheRest(t *testing.T) {
	malformed := func(fds []int) []byte { return append(unix.UnixRights(fds...), cmsgOfLen(1<<10)...) }
	two := func(fds []int) []byte { return append(unix.UnixRights(fds[0]), unix.UnixRights(fds[1])...) }
	for _, tc := range []struct {
		name   string
		n      int // descriptors received
		data   []byte
		oob    func([]int) []byte
		flags  int
		status int // 0: handed over
	}{
		{"a handoff", 1, []byte{handoffMarker}, func(f []int) []byte { return unix.UnixRights(f...) }, 0, 0},
		{"a malformed second message", 1, []byte{handoffMarker}, malformed, 0, 400},
		{"two messages of one", 2, []byte{handoffMarker}, two, 0, 400},
		{"truncated, nothing installed", 0, []byte{handoffMarker}, func([]int) []byte { return nil }, unix.MSG_CTRUNC, 503},
		{"truncated after one", 1, []byte{handoffMarker}, func(f []int) []byte { return unix.UnixRights(f...) }, unix.MSG_CTRUNC, 503},
		{"truncated, buffer full", 2, []byte{handoffMarker}, func(f []int) []byte { return unix.UnixRights(f...) }, unix.MSG_CTRUNC, 400},
		{"no marker", 1, []byte("GET"), func(f []int) []byte { return unix.UnixRights(f...) }, 0, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds := dups(t, tc.n)
			before := openFDs(t)
			fd, err := handedFD(tc.data, tc.oob(fds), tc.flags)
			if tc.status == 0 {
				if err != nil || fd != fds[0] {
					t.Fatalf("handedFD = %d, %v; want %d", fd, err, fds[0])
				}
				defer unix.Close(fd)
			} else if err == nil || statusOf(err) != tc.status {
				t.Fatalf("handedFD = %d, %v; want a %d", fd, err, tc.status)
			}
			for i, fd := range fds {
				if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); (err == nil) != (tc.status == 0 && i == 0) {
					t.Errorf("descriptor %d received: fcntl %v; want it closed unless handed over", fd, err)
				}
			}
			kept := 0
			if tc.status == 0 {
				kept = 1
			}
			if after := openFDs(t); after > before-tc.n+kept {
				t.Errorf("%d descriptors open after, %d before with %d received; want %d kept", after, before, tc.n, kept)
			}
		})
	}
}

// TestHandoffOverTheBuffer: a sender of three descriptors (the kernel
// installs two and truncates) is refused with a 400, and the proxy keeps
// none of them.
func TestHandoffOverTheBuffer(t *testing.T) {
	// In a child, alone: other tests' connections closing in the
	// background would hide a leak from the count.
	inChild(t, func(t *testing.T) {
		w := newWorld(t, nil)
		path := w.serveUnix()
		_, f1 := tcpPair(t)
		_, f2 := tcpPair(t)
		_, f3 := tcpPair(t)
		before := openFDs(t)
		u := handOver(t, path, []byte{handoffMarker}, int(f1.Fd()), int(f2.Fd()), int(f3.Fd()))
		if b := readAll(t, u); !strings.HasPrefix(b, "HTTP/1.1 400 ") {
			t.Errorf("three descriptors: %q; want a 400", b)
		}
		u.Close()
		waitFor(t, func() bool { return openFDs(t) == before })
		if d := w.lastEvent(1); d.Allowed || !strings.Contains(d.Reason, "more than 2 descriptors") {
			t.Errorf("decision %+v", d)
		}
	})
}

// TestHandoffAtFDLimit: with the proxy at RLIMIT_NOFILE the kernel drops
// the handed descriptor and sets MSG_CTRUNC. That is a failed handoff (a
// 503 on the Unix connection, nothing left open), not a plain client whose
// request starts with the marker. It runs in a child: it fills the
// process's descriptor table.
func TestHandoffAtFDLimit(t *testing.T) {
	inChild(t, func(t *testing.T) {
		member, f := tcpPair(t)
		sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(sp[0])
		if err := unix.Sendmsg(sp[0], []byte{handoffMarker}, unix.UnixRights(int(f.Fd())), nil, 0); err != nil {
			t.Fatal(err)
		}
		f.Close() // in flight now: only the message holds the member's socket
		uc := unixConn(t, sp[1])
		before := openFDs(t)
		fill := fillFDs(t)
		client, prefix, err := takeClient(uc)
		fill()
		if client != nil || len(prefix) != 0 || statusOf(err) != 503 {
			t.Fatalf("takeClient at the descriptor limit = %v, %q, %v; want a 503 error", client, prefix, err)
		}
		if after := openFDs(t); after != before {
			t.Errorf("%d descriptors open after the failed handoff, %d before", after, before)
		}
		member.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := member.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the member's socket after the kernel dropped it: read %v; want it closed", err)
		}
	})
}

// fillFDs lowers RLIMIT_NOFILE to just above the descriptors open now and
// opens /dev/null until the table is full; the returned func undoes both.
func fillFDs(t *testing.T) func() {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	high := 0
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > high {
			high = n
		}
	}
	lim := old
	lim.Cur = uint64(high + 8)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	var held []int
	for {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EMFILE) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, fd)
	}
	return func() {
		closeAll(held)
		unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	}
}

// unixConn wraps the socket fd as a *net.UnixConn and closes fd.
func unixConn(t *testing.T, fd int) *net.UnixConn {
	t.Helper()
	f := os.NewFile(uintptr(fd), "unix")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.UnixConn)
}

const childEnv = "ACBOX_EGRESS_TEST_CHILD"

// inChild runs body in a re-executed test binary (the process-wide state
// it changes stays there), and reports the child's outcome as this test's.
func inChild(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		body(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
