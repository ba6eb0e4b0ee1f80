//go:build integration

package integration

import (
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
)

// loopbackListener is a TCP listener on the host's 127.0.0.1 that counts
// the connections it accepts: the member must not reach it.
type loopbackListener struct {
	ln      net.Listener
	accepts atomic.Int64
}

func listenLoopback(t *testing.T) *loopbackListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &loopbackListener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.accepts.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

func (l *loopbackListener) port() string {
	return strconv.Itoa(l.ln.Addr().(*net.TCPAddr).Port)
}

// TestNoNetwork: the member has only a loopback interface, no route, and
// cannot reach a listener on the host's 127.0.0.1. Only loopback is ever
// addressed.
func TestNoNetwork(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 is not on this host; the connect probe needs it")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		l := listenLoopback(t)
		probe(t, m, []string{"--env", "PORT=" + l.port()}, `
ifaces() { awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev | sort | tr '\n' ' '; }
yes port-named       'test -n "$PORT"'
yes only-lo          'test "$(ifaces)" = "lo "'
yes no-ipv4-routes   'test "$(awk "NR > 1" /proc/net/route | wc -l)" = 0'
yes no-ipv6-routes   '! grep -qv " lo$" /proc/net/ipv6_route'
no  connect-host-lo  'python3 -c "import socket,os; socket.create_connection((\"127.0.0.1\", int(os.environ[\"PORT\"])), timeout=3)"'
no  connect-host-lo6 'python3 -c "import socket,os; socket.create_connection((\"::1\", int(os.environ[\"PORT\"])), timeout=3)"'
yes own-lo-works     'python3 -c "
import socket
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), timeout=3)"'
`)
		if n := l.accepts.Load(); n != 0 {
			t.Errorf("the host's loopback listener accepted %d connections from the sandbox", n)
		}
	})
}
