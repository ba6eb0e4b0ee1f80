//go:build integration

package egress

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fillInflight is the hog: it puts descriptors in flight on socket pairs
// it never reads until the kernel refuses more (ETOOMANYREFS: the count is
// per user and shared by every process of the uid), prints "full", and
// holds them for 10 s.
const fillInflight = `
import os, socket, time, errno
fd = os.open("/dev/null", os.O_RDONLY)
pairs, full = [], False
while not full and len(pairs) < 4096:
    a, b = socket.socketpair()
    a.setblocking(False)
    pairs.append((a, b))
    while True:
        try:
            socket.send_fds(a, [b"\0"], [fd] * 250)
        except BlockingIOError:
            break
        except OSError as e:
            full = e.errno == errno.ETOOMANYREFS
            break
print("full" if full else "not full", flush=True)
time.sleep(10)
`

// TestSiblingDescriptorsInFlight: while a member of one sandbox holds its
// user's descriptors in flight at the kernel's limit, a request from
// another sandbox of the same user is still served. The bridge hands each
// connection's socket to the proxy with SCM_RIGHTS, which the kernel then
// refuses; it answered 502, so one member cut every sibling sandbox off
// the proxy. It now relays the bytes instead.
func TestSiblingDescriptorsInFlight(t *testing.T) {
	w := newWorld(t)
	for _, who := range []string{"", testUser()} {
		name := "root"
		if who != "" {
			name = "user"
		}
		t.Run(name, func(t *testing.T) {
			hog, lines := w.start(t, who, "--allow", "origin.test", "--", "/usr/bin/python3", "-c", fillInflight)
			defer hog.Wait()
			if line, _ := lines.ReadString('\n'); strings.TrimSpace(line) != "full" {
				t.Skipf("the hog did not reach the kernel's limit: %q", line)
			}
			out, _, code := w.run(t, who, "--allow", "origin.test", "--", "curl", "-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://origin.test/")
			if code != 0 || strings.TrimSpace(out) != "200" {
				t.Errorf("beside a sandbox holding the user's descriptors in flight: exit %d, status %q; want 200", code, out)
			}
		})
	}
}

// start starts a sandbox as w.run does and returns its stdout, unread.
func (w *world) start(t *testing.T, user string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	hosts := filepath.Join("/etc/netns", w.client, "hosts")
	inner := append([]string{"sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts}, wrapUser(user, append([]string{w.bin, "run", "--status-fd", "3"}, args...))...)
	argv := append([]string{"nsenter", "--net=/var/run/netns/" + w.client, "unshare", "-m", "--propagation", "private"}, inner...)
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd.ExtraFiles = []*os.File{null}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { timer.Stop() })
	return cmd, bufio.NewReader(out)
}
