//go:build integration

package lifecycle

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdInotify is the member: it creates inotify instances until the kernel
// refuses one, prints "held N errno E", and keeps them until its stdin ends.
const holdInotify = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < 100000 and libc.inotify_init1(0) >= 0:
    n += 1
print("held %d errno %d" % (n, ctypes.get_errno()), flush=True)
sys.stdin.read()
`

// oneInotify creates one inotify instance and prints "ok" or the errno.
const oneInotify = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("ok" if libc.inotify_init1(0) >= 0 else "errno %d" % ctypes.get_errno())
`

// TestInotifyHeadroom: a member that takes every inotify instance it can
// still leaves the same user able to create one on the host while the
// sandbox runs (an editor, a file watcher). Before the per-user counters
// were capped in the sandbox's user namespace, the member took them all
// and inotify_init1 failed outside with EMFILE until the sandbox ended.
func TestInotifyHeadroom(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		rep := filepath.Join(r.out(), "inotify.json")
		c := r.cmd("run", "--no-tty", "--report", rep, "--", "/usr/bin/python3", "-c", holdInotify)
		stdin, _ := c.StdinPipe()
		stdout, _ := c.StdoutPipe()
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
		held := readLineWithin(stdout, 20*time.Second)
		if !strings.HasPrefix(held, "held ") {
			t.Fatalf("member: %q", held)
		}
		outside := r.outsideInotify(t)
		stdin.Close()
		c.Wait()
		t.Logf("%s: member %s; outside, the same user: %s; sandbox limit %s", r.name, held, outside, reportLimit(rep, "user.max_inotify_instances"))
		if outside != "ok" {
			t.Errorf("while the member held every instance it could (%s), the same user on the host got %s; want ok", held, outside)
		}
	})
}

// outsideInotify runs oneInotify on the host as the runner's user.
func (r *runner) outsideInotify(t *testing.T) string {
	c := exec.Command("/usr/bin/python3", "-c", oneInotify)
	c.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	out, err := c.Output()
	if err != nil {
		t.Fatalf("python3 as %s: %v", r.name, err)
	}
	return strings.TrimSpace(string(out))
}

func readLineWithin(r io.Reader, d time.Duration) string {
	ch := make(chan string, 1)
	go func() { l, _ := bufio.NewReader(r).ReadString('\n'); ch <- strings.TrimSpace(l) }()
	select {
	case l := <-ch:
		return l
	case <-time.After(d):
		return "(nothing after " + d.String() + ")"
	}
}

// reportLimit reads one limit from an enforcement report, or "".
func reportLimit(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var rep struct {
		Limits map[string]string `json:"limits"`
	}
	json.Unmarshal(b, &rep)
	return rep.Limits[key]
}
