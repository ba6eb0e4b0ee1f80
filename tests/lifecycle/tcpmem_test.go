//go:build integration

package lifecycle

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// holdTCP is the member: 16 loopback TCP connections whose receiver never
// reads, each sender writing until the kernel takes no more or argv[1]
// bytes are queued in all; it prints "queued N".
const holdTCP = `
import socket, sys
target, queued, keep = int(sys.argv[1]), 0, []
ln = socket.socket(); ln.bind(("127.0.0.1", 0)); ln.listen(64)
buf = b"x" * 65536
for i in range(16):
    c = socket.create_connection(ln.getsockname()); s, _ = ln.accept(); keep += [c, s]
    c.setblocking(False)
    while queued < target:
        try:
            queued += c.send(buf)
        except BlockingIOError:
            break
print("queued", queued, flush=True)
`

// tcpConns is holdTCP's connection count: past the limit the kernel still
// forces one packet a direction into each connection (about 64 KiB on
// loopback), which the cgroup's limit does not stop.
const tcpConns = 16

// TestTCPBuffersWithinMemory: under a root launch on cgroup v1, the
// sandbox's cgroup has memory.kmem.tcp.limit_in_bytes (a quarter of
// --memory), so a member's TCP buffers stop near it. Before, v1 charged
// socket buffers nowhere and 16 connections held 60 MiB under --memory
// 128MiB (attack repro-4 of 2026-12-02 held 300 MiB with 80). Elsewhere
// (a user without a cgroup, cgroup v2) the test only logs what it held.
func TestTCPBuffersWithinMemory(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		rep := filepath.Join(r.out(), "tcp.json")
		out, stderr, code := r.run(t, "run", "--no-tty", "--memory", strconv.Itoa(ipcMemory), "--report", rep, "--",
			"/usr/bin/python3", "-c", holdTCP, strconv.Itoa(96<<20))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		f := strings.Fields(out)
		if len(f) != 2 || f[0] != "queued" {
			t.Fatalf("member: %q", out)
		}
		queued, _ := strconv.ParseInt(f[1], 10, 64)
		b, _ := os.ReadFile(rep)
		v1 := strings.Contains(string(b), `"mechanism": "cgroup v1`) || strings.Contains(string(b), `"mechanism":"cgroup v1`)
		t.Logf("%s: %d connections queued %d MiB (cgroup v1: %v)", r.name, tcpConns, queued>>20, v1)
		if !v1 {
			return
		}
		if !strings.Contains(string(b), "memory.kmem.tcp.limit_in_bytes") {
			t.Errorf("a cgroup v1 launch without memory.kmem.tcp.limit_in_bytes in its report")
		}
		if limit := int64(ipcMemory/4 + tcpConns*2*128<<10); queued > limit {
			t.Errorf("%d connections queued %d MiB under --memory %d MiB; want at most %d MiB", tcpConns, queued>>20, ipcMemory>>20, limit>>20)
		}
	})
}
