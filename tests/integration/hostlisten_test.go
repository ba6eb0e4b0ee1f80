//go:build integration

package integration

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// nonDumpableListen makes the process non-dumpable, as ssh-agent and
// gpg-agent do before they listen, then listens on a Unix socket, on a TCP
// socket bound to the --bind-port port and on an unbound TCP socket. The
// listen guard takes the socket with pidfd_getfd, which needs ptrace
// access to the member: without CAP_SYS_PTRACE in the sandbox's user
// namespace, pid 1 got EACCES for every listen here (review3, finding 1).
const nonDumpableListen = `
import ctypes, errno, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
    sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
if libc.prctl(3, 0, 0, 0, 0) != 0:  # PR_GET_DUMPABLE
    sys.exit("still dumpable")
u = socket.socket(socket.AF_UNIX)
u.bind("/tmp/non-dumpable.sock")
u.listen(1)
print("unix-listen ok")
t = socket.socket()
t.bind(("127.0.0.1", int(os.environ["PORT"])))
t.listen(1)
print("bound-tcp-listen ok")
try:
    socket.socket().listen(1)
    print("unbound-tcp-listen LISTENED")
except OSError as e:
    print("unbound-tcp-listen", errno.errorcode[e.errno])
`

// TestHostListenNonDumpable: in --net host, a non-dumpable member listens
// on a Unix socket and on its --bind-port port, and the guard still
// refuses an unbound TCP socket's listen.
func TestHostListenNonDumpable(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 is not on this host; the listener needs it")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		port := freePort(t)
		r := runBox(t, m, "run", "--net", "host", "--bind-port", port, "--env", "PORT="+port,
			"--", "python3", "-c", nonDumpableListen)
		want := "unix-listen ok\nbound-tcp-listen ok\nunbound-tcp-listen EACCES\n"
		if r.code != 0 || r.stdout != want {
			t.Fatalf("non-dumpable listens: exit %d, stdout %q, want %q\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
		}
	})
}

// TestHostSSHAgent: ssh-agent (which makes itself non-dumpable before it
// listens) starts on a Unix socket under --net host, as under --net none.
func TestHostSSHAgent(t *testing.T) {
	if _, err := exec.LookPath("ssh-agent"); err != nil {
		t.Skip("ssh-agent is not on this host")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		for _, netMode := range []string{"none", "host"} {
			r := runBox(t, m, "run", "--net", netMode, "--", "sh", "-c",
				`eval "$(ssh-agent -a /tmp/agent.sock)" >/dev/null && test -S /tmp/agent.sock && kill "$SSH_AGENT_PID" && echo started`)
			if r.code != 0 || r.stdout != "started\n" {
				t.Errorf("--net %s: ssh-agent: exit %d, stdout %q\nstderr:\n%s", netMode, r.code, r.stdout, r.stderr)
			}
		}
	})
}

// freePort is a TCP port nothing listened on a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
