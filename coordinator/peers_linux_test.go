package coordinator

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// dialHelperEnv makes this test binary a process that dials the Unix
// socket named by it and then waits for its stdin to close.
const dialHelperEnv = "ACBOX_TEST_PEER_DIAL"

func TestPeerDialHelper(t *testing.T) {
	path := os.Getenv(dialHelperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		os.Exit(3)
	}
	defer c.Close()
	os.Stdin.Read(make([]byte, 1))
	os.Exit(0)
}

// dialFromNewPidNS starts the helper as pid 1 of a new user and pid
// namespace (a sandbox, for what peers can tell) dialing path.
func dialFromNewPidNS(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeerDialHelper$")
	cmd.Env = append(os.Environ(), dialHelperEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot make a user and pid namespace here: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	return cmd
}

// TestPeersAdmitOnlyTheSandbox: a sandbox's sockets answer a process in
// the pid namespace of its pid 1, and refuse one in another sandbox's and
// one on the host (the same user in each), as well as everyone once the
// sandbox ended before its pid 1 was known. The cross-sandbox attack on
// the broker (a run directory inside another sandbox's read grant) is
// the second case.
func TestPeersAdmitOnlyTheSandbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accept := func() net.Conn {
		t.Helper()
		ln.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	own := dialFromNewPidNS(t, path)
	ownConn := accept()
	peers := newSandboxPeers()
	peers.bind(own.Process.Pid)
	if err := peers.Admit(ownConn, nil); err != nil {
		t.Errorf("the sandbox's own pid 1 refused: %v", err)
	}
	dialFromNewPidNS(t, path)
	if err := peers.Admit(accept(), nil); !errors.Is(err, policy.ErrRefused) {
		t.Errorf("a process of another sandbox: %v, want a refusal", err)
	}
	host, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := peers.Admit(accept(), nil); !errors.Is(err, policy.ErrRefused) {
		t.Errorf("a host process: %v, want a refusal", err)
	}
	ended := newSandboxPeers()
	ended.end()
	if err := ended.Admit(ownConn, nil); err == nil {
		t.Error("a sandbox that ended before its pid 1 was ready admitted a peer")
	}
	stop := make(chan struct{})
	close(stop)
	if err := newSandboxPeers().Admit(ownConn, stop); err == nil {
		t.Error("a peer admitted before pid 1 was known")
	}
}

// TestSandboxNSRefusesOwn: pid 1 in acbox's own pid namespace would admit
// every process of the host and every sandbox below it.
func TestSandboxNSRefusesOwn(t *testing.T) {
	saved := sandboxNS
	defer func() { sandboxNS = saved }()
	sandboxNS = defaultSandboxNS
	if _, err := sandboxNS(os.Getpid()); err == nil {
		t.Fatal("acbox's own pid namespace accepted as a sandbox's")
	}
	if _, err := sys.PidNSOf(1 << 30); err == nil {
		t.Fatal("a pid that does not exist has a namespace")
	}
}
