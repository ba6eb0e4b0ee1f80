package bridge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDialFile(t *testing.T) {
	path := upstream(t)
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "proxy")
	defer f.Close()
	c, err := DialFile(f)()
	if err != nil {
		t.Fatalf("DialFile(%d): %v", fd, err)
	}
	defer c.Close()
	c.Write([]byte("via fd"))
	c.(*net.UnixConn).CloseWrite()
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	if string(buf[:n]) != "got via fd" {
		t.Errorf("answer %q", buf[:n])
	}
}

const childEnv = "ACBOX_BRIDGE_TEST_CHILD"

// TestLoopbackUp re-runs this test binary in a new user and network
// namespace (own uid and gid mapped to themselves, CAP_NET_ADMIN ambient),
// where lo starts down, and checks there that LoopbackUp brings it up and
// that the bridge serves on Addr. The same shape works unprivileged.
func TestLoopbackUp(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		inNewNetns(t)
		return
	}
	runChild(t, "TestLoopbackUp", childEnv, syscall.CLONE_NEWUSER|syscall.CLONE_NEWNET, []uintptr{unix.CAP_NET_ADMIN})
}

// runChild re-runs this test binary's test name in new namespaces (a user
// namespace with the caller's own uid and gid mapped, plus flags, with the
// ambient capabilities caps), with env set to 1, and fails unless the
// child's test passed; it skips where user namespaces are unavailable.
func runChild(t *testing.T, name, env string, flags uintptr, caps []uintptr) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1")
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  flags | syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: caps,
	}
	out, err := cmd.CombinedOutput()
	var pe *os.PathError
	if errors.As(err, &pe) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EINVAL) {
		t.Skipf("cannot create the namespaces here (%v): user namespaces unavailable (check user.max_user_namespaces, or an AppArmor userns restriction)", err)
	}
	t.Logf("child:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// inNewNetns runs in the child.
func inNewNetns(t *testing.T) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	if lo.Flags&net.FlagUp != 0 {
		t.Fatal("lo is already up: not a fresh network namespace")
	}
	// Binding 127.0.0.1 works even with lo down; connecting does not.
	if down, err := Listen(); err == nil {
		if c, err := net.Dial("tcp", Addr); err == nil {
			c.Close()
			t.Error("connected to 127.0.0.1 with lo down")
		}
		down.Close()
	}
	if err := LoopbackUp(); err != nil {
		t.Fatalf("LoopbackUp: %v", err)
	}
	if lo, _ = net.InterfaceByName("lo"); lo.Flags&net.FlagUp == 0 {
		t.Fatal("lo still down after LoopbackUp")
	}
	ln, err := Listen()
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	defer ln.Close()
	if ln.Addr().String() != Addr {
		t.Errorf("listening on %s; want %s", ln.Addr(), Addr)
	}
	path := upstream(t)
	go Serve(ln, func() (net.Conn, error) { return net.Dial("unix", path) })
	if got := exchange(t, Addr, "in netns"); got != "got in netns" {
		t.Errorf("answer %q", got)
	}
	if c, err := net.Dial("tcp", "[::1]:3128"); err == nil {
		c.Close()
		t.Error("[::1]:3128 accepted a connection; the bridge should be IPv4 only")
	}
}

// TestHandsOffToUnixProxy: with the proxy on a Unix socket, the bridge
// hands the client's socket over instead of relaying its bytes, and the
// first bytes, only peeked at, are still there for the proxy to read.
func TestHandsOffToUnixProxy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		client, first := takeHanded(t, c.(*net.UnixConn))
		if _, ok := client.(*net.TCPConn); !ok || len(first) != 0 {
			got <- fmt.Sprintf("not handed: %T, relayed %q", client, first)
			return
		}
		b := make([]byte, 5)
		io.ReadFull(client, b)
		client.Write([]byte("handed"))
		client.Close()
		got <- string(b)
	}()
	addr := serveBridge(t, func() (net.Conn, error) { return net.Dial("unix", path) })
	if reply := exchange(t, addr, "hello"); reply != "handed" {
		t.Errorf("reply %q; want the proxy's own answer on the handed socket", reply)
	}
	if s := <-got; s != "hello" {
		t.Errorf("the proxy read %q; want hello", s)
	}
}

// TestRelaysToStreamProxy: a proxy that is not at the end of a Unix socket
// gets the bytes relayed.
func TestRelaysToStreamProxy(t *testing.T) {
	up := listenEcho(t)
	addr := serveBridge(t, func() (net.Conn, error) { return net.Dial("tcp", up) })
	if reply := exchange(t, addr, "bytes"); reply != "got bytes" {
		t.Errorf("reply %q", reply)
	}
}

// listenEcho answers "got <data>" on TCP.
func listenEcho(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveEach(t, ln, func(c net.Conn) {
		b, _ := io.ReadAll(c)
		c.Write(append([]byte("got "), b...))
	})
	return ln.Addr().String()
}

const refsChildEnv = "ACBOX_BRIDGE_TEST_REFS_CHILD"

// TestHandoffTooManyRefs: when the kernel refuses the handoff because the
// user has too many descriptors in flight (ETOOMANYREFS), which any
// process of the user, a member of another sandbox included, can cause
// with its own socket pairs, the bridge relays the bytes instead of
// answering 502. The child runs in a user namespace of its own, so it has
// no capability that would lift the kernel's limit, with RLIMIT_NOFILE
// lowered to 64 so that a few hundred descriptors in flight reach it.
func TestHandoffTooManyRefs(t *testing.T) {
	if os.Getenv(refsChildEnv) == "1" {
		tooManyRefs(t)
		return
	}
	runChild(t, "TestHandoffTooManyRefs", refsChildEnv, 0, nil)
}

// tooManyRefs runs in the child: it puts descriptors in flight on socket
// pairs it never reads until the kernel refuses more, then asks the bridge.
func tooManyRefs(t *testing.T) {
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Fatal(err)
	}
	path := upstream(t)
	addr := serveBridge(t, func() (net.Conn, error) { return net.Dial("unix", path) })
	fds := make([]int, 250) // descriptor 0, 250 times
	var pairs []int
	defer func() {
		for _, fd := range pairs {
			unix.Close(fd)
		}
	}()
	full := false
	for range 8 {
		sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, sp[0], sp[1])
		for !full {
			err := unix.Sendmsg(sp[0], []byte{0}, unix.UnixRights(fds...), nil, 0)
			if errors.Is(err, unix.EAGAIN) {
				break
			}
			if errors.Is(err, unix.ETOOMANYREFS) {
				full = true
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !full {
		t.Skip("the kernel did not refuse descriptors in flight (a capability lifts the limit?)")
	}
	if got := exchange(t, addr, "hello"); got != "got hello" {
		t.Errorf("with the user's descriptors in flight at the limit: reply %q; want the bytes relayed", got)
	}
}
