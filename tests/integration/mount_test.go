//go:build integration

package integration

import (
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// unixServer serves one greeting line per connection on a Unix socket of
// the host, owned by the mode's user, and counts the connections.
type unixServer struct {
	path    string
	greet   string
	accepts atomic.Int64
}

func serveUnix(t *testing.T, fx *fixture, name string) *unixServer {
	t.Helper()
	s := &unixServer{path: filepath.Join(fx.root, name), greet: "hello-" + randHex(6)}
	ln, err := net.Listen("unix", s.path)
	if err != nil {
		t.Fatal(err)
	}
	fx.own(s.path, 0o600)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			c.Write([]byte(s.greet + "\n"))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

// TestRuntimeMounts: --mount binds a file read-only and a Unix socket at a
// target other than its source path; the member reads the file, cannot
// change it, and talks to the host's socket server through the target.
func TestRuntimeMounts(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 is not on this host; the socket client needs it")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		file := fx.file("config.txt", "mounted-content\n")
		srv := serveUnix(t, fx, "host.sock")
		flags := []string{
			"--mount", file + ":/srv/acbox-it/config.txt:ro",
			"--mount", srv.path + ":/run/acbox-it.sock",
			"--env", "GREET=" + srv.greet, "--env", "SRC=" + file,
		}
		probe(t, m, flags, `
yes file-readable     'grep -qx mounted-content /srv/acbox-it/config.txt'
no  file-read-only    'echo x >> /srv/acbox-it/config.txt'
no  file-source-path  'test -e "$SRC"'
yes socket-is-socket  'test -S /run/acbox-it.sock'
yes socket-connects   'test "$(python3 -c "
import socket
s = socket.socket(socket.AF_UNIX)
s.connect(\"/run/acbox-it.sock\")
print(s.makefile().readline().strip())")" = "$GREET"'
`)
		if b, _ := os.ReadFile(file); string(b) != "mounted-content\n" {
			t.Errorf("the read-only mounted file changed on the host: %q", b)
		}
		if srv.accepts.Load() == 0 {
			t.Errorf("the host's socket server saw no connection")
		}
	})
}

// TestMountUnderSystemDir: a runtime mount whose target lies in a system
// directory that does not have that entry on the host (the design's launch
// spec mounts a tool at /opt/pi) either works or is refused when the plan
// is made (125); it must not pass the plan and then fail inside (126).
func TestMountUnderSystemDir(t *testing.T) {
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		t.Skip("/opt is not a directory on this host")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		tool := fx.dir("tool")
		fx.file("tool/version", "tool-1\n")
		target := "/opt/acbox-it-tool-" + randHex(4)
		r := runBox(t, m, "run", "--mount", tool+":"+target+":ro", "--", "cat", target+"/version")
		switch {
		case r.code == 0 && r.stdout == "tool-1\n":
		case r.code == exitRefused:
			t.Logf("refused at plan time (acceptable): %s", r.stderr)
		default:
			t.Errorf("--mount %s:%s:ro: want it mounted, or refused with %d before launch; got\n%v", tool, target, exitRefused, r)
		}
	})
}
