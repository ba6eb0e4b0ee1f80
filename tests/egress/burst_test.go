//go:build integration

package egress

import (
	"regexp"
	"strconv"
	"testing"
)

// burstThenRequest is the member: 3,000 connections to the bridge, each
// opened and dropped at once, then one plain HTTP request to the origin
// through the proxy, timed from its connect to the status line. It prints
// "status=N elapsed=SECONDS" (status 0: no answer).
const burstThenRequest = `
import socket, time
for i in range(3000):
    s = socket.socket()
    s.connect(("127.0.0.1", 3128))
    s.close()
t = time.monotonic()
status = 0
try:
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(b"GET http://origin.test/ HTTP/1.1\r\nHost: origin.test\r\n\r\n")
    status = int(s.recv(64).split()[1])
except Exception as e:
    print("error", e)
print("status=%d elapsed=%.3f" % (status, time.monotonic() - t))
`

var burstResult = regexp.MustCompile(`status=(\d+) elapsed=([0-9.]+)`)

// TestProxyRecoversFromBurst: after a member opens and drops thousands of
// connections to 127.0.0.1:3128, its next request is answered within a
// second. (The bridge in pid 1 used to lose the proxy socket's descriptor
// to a finalizer once the burst made the Go runtime collect, and refused
// every later connection until the sandbox ended.)
func TestProxyRecoversFromBurst(t *testing.T) {
	w := newWorld(t)
	for _, who := range []string{"", testUser()} {
		name := "root"
		if who != "" {
			name = "user"
		}
		t.Run(name, func(t *testing.T) {
			out, _, code := w.run(t, who, "--allow", "origin.test", "--", "/usr/bin/python3", "-c", burstThenRequest)
			m := burstResult.FindStringSubmatch(out)
			if code != 0 || m == nil {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			t.Log(m[0])
			elapsed, _ := strconv.ParseFloat(m[2], 64)
			if m[1] != "200" || elapsed > 1 {
				t.Errorf("after the burst: status %s in %.3fs; want 200 within 1s\n%s", m[1], elapsed, out)
			}
		})
	}
}
