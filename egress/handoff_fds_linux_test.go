package egress

import (
	"encoding/binary"
	"io"
	"net"
	"os"
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
// handoff hands over.
func TestHandedFDClosesTheRest(t *testing.T) {
	malformed := func(fds []int) []byte { return append(unix.UnixRights(fds...), cmsgOfLen(1<<10)...) }
	two := func(fds []int) []byte { return append(unix.UnixRights(fds[0]), unix.UnixRights(fds[1])...) }
	for _, tc := range []struct {
		name   string
		n      int // descriptors received
		data   []byte
		oob    func([]int) []byte
		status int // 0: handed over
	}{
		{"a handoff", 1, []byte{handoffMarker}, func(f []int) []byte { return unix.UnixRights(f...) }, 0},
		{"a malformed second message", 1, []byte{handoffMarker}, malformed, 400},
		{"two messages of one", 2, []byte{handoffMarker}, two, 400},
		{"no marker", 1, []byte("GET"), func(f []int) []byte { return unix.UnixRights(f...) }, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds := dups(t, tc.n)
			before := openFDs(t)
			fd, err := handedFD(tc.data, tc.oob(fds))
			if tc.status == 0 {
				if err != nil || fd != fds[0] {
					t.Fatalf("handedFD = %d, %v; want %d", fd, err, fds[0])
				}
				unix.Close(fd)
			} else if err == nil || statusOf(err) != tc.status {
				t.Fatalf("handedFD = %d, %v; want a %d", fd, err, tc.status)
			}
			if after := openFDs(t); after != before-tc.n {
				t.Errorf("%d descriptors open after, %d before with %d received; want all %d closed", after, before, tc.n, tc.n)
			}
		})
	}
}
