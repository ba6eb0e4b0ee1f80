package docker

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker/engine"
	"github.com/acbox/acbox/coordinator/docker/gate"
	"github.com/acbox/acbox/coordinator/sys"
)

// otherInit starts a process (this test binary, waiting on its stdin) as
// pid 1 of a new user and pid namespace: what a pid from a daemon in
// another pid namespace may name here, and as close as a process that is
// not the container's can come to looking like its init.
func otherInit(t testing.TB) (int, gate.NS) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWaitOnStdin$")
	cmd.Env = append(os.Environ(), "ACBOX_TEST_WAIT_STDIN=1")
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
	ns, err := sys.PidNSOf(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, gate.NS{Dev: ns.Dev, Ino: ns.Ino}
}

// TestWaitOnStdin is otherInit's process.
func TestWaitOnStdin(t *testing.T) {
	if os.Getenv("ACBOX_TEST_WAIT_STDIN") == "" {
		t.Skip("helper process only")
	}
	os.Stdin.Read(make([]byte, 1))
	os.Exit(0)
}

// stillRuns fails the test when pid's process has exited or was signalled.
func stillRuns(t *testing.T, pid int) {
	t.Helper()
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		t.Fatalf("process %d is gone: %v", pid, err)
	}
	defer sys.Close(fd)
	if gone, _ := sys.WaitReadable(fd, 200*time.Millisecond); gone {
		t.Fatalf("process %d exited: it was signalled", pid)
	}
}

// TestPinInit: the daemon's pid is taken as the container's pid 1 only
// when it is, from here, pid 1 of the pid namespace the init reported;
// pid 1 of another namespace, a process that is no namespace's pid 1, a
// pid that is gone and a namespace the init did not report are not.
func TestPinInit(t *testing.T) {
	pid, ns := otherInit(t)
	self, err := sys.PidNSOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	own := gate.NS{Dev: self.Dev, Ino: self.Ino}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pid  int
		want gate.NS
		ok   bool
		why  string
	}{
		{"pid 1 of the init's namespace", pid, ns, true, ""},
		{"pid 1 of another namespace", pid, own, false, "another pid namespace"},
		{"not a namespace's pid 1", os.Getpid(), own, false, "another pid namespace"},
		{"gone", gone.Process.Pid, own, false, "another pid namespace"},
		{"no namespace reported", pid, gate.NS{}, false, "did not report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := pinInit(tc.pid, tc.want)
			defer h.close()
			if (h.pid > 0) != tc.ok || (h.fd > 0) != tc.ok || (tc.ok && h.pid != tc.pid) {
				t.Fatalf("pinInit(%d) = %+v; want pinned %v", tc.pid, h, tc.ok)
			}
			if !strings.Contains(h.why, tc.why) {
				t.Errorf("why %q; want it to say %q", h.why, tc.why)
			}
			if !tc.ok && len(h.namespaces()) != 0 {
				t.Errorf("namespaces read through a pid not verified: %v", h.namespaces())
			}
			if tc.ok && (h.exited() || h.namespaces()["pid"] != ns.Ino) {
				t.Errorf("the verified pid 1: exited %v, namespaces %v", h.exited(), h.namespaces())
			}
		})
	}
	stillRuns(t, pid)
}

// fakeDaemon is an Engine API on a Unix socket that lists containers and
// records the kills it is asked for.
type fakeDaemon struct {
	socket string
	list   []engine.Summary
	mu     sync.Mutex
	kills  []string // "ID SIGNAL"
}

func newFakeDaemon(t *testing.T, list []engine.Summary) *fakeDaemon {
	t.Helper()
	d := &fakeDaemon{socket: filepath.Join(t.TempDir(), "docker.sock"), list: list}
	ln, err := net.Listen("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(d.serve))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return d
}

func (d *fakeDaemon) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Api-Version", "1.43")
	w.Header().Set("Content-Type", "application/json")
	p := r.URL.Path[strings.Index(r.URL.Path[1:], "/")+1:] // without /vX.Y
	switch {
	case r.URL.Path == "/_ping":
		io.WriteString(w, "OK")
	case p == "/containers/json":
		jsonOut(w, d.list)
	case strings.HasSuffix(p, "/kill"):
		d.mu.Lock()
		d.kills = append(d.kills, strings.TrimSuffix(strings.TrimPrefix(p, "/containers/"), "/kill")+" "+r.URL.Query().Get("signal"))
		d.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func (d *fakeDaemon) killed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.kills...)
}

func (d *fakeDaemon) client(t *testing.T) *engine.Client {
	t.Helper()
	c, err := engine.New("unix://"+d.socket, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestForeignPidNotSignalled: the daemon reports as the container's pid 1
// a pid that here is another process (pid 1 of its own namespace, of this
// user): the launch reports no host pid and no pidfd, so nothing signals
// that process, and the kill it hands over goes to the container through
// the Engine API.
func TestForeignPidNotSignalled(t *testing.T) {
	pid, _ := otherInit(t)
	container, _ := otherInit(t) // stands in for the container's init
	cns, err := sys.PidNSOf(container)
	if err != nil {
		t.Fatal(err)
	}
	d := newFakeDaemon(t, nil)
	l := &launch{c: d.client(t), id: "c0ffee", s: &setup{id: "sb1"},
		init: pinInit(pid, gate.NS{Dev: cns.Dev, Ino: cns.Ino})}
	defer l.init.close()
	st := l.started(nil)
	if st.Pid != 0 || st.Pidfd != 0 || st.Kill == nil {
		t.Fatalf("started %+v; want no pid, no pidfd, a kill through the Engine API", st)
	}
	if err := st.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := d.killed(); len(got) != 1 || got[0] != "c0ffee KILL" {
		t.Errorf("kills sent to the daemon: %q; want [c0ffee KILL]", got)
	}
	stillRuns(t, pid)
}

// TestEndFindsOwnersContainer: acbox stop's kill through the Engine API
// (Backend.End) kills only the container whose labels name the sandbox and
// its owner (pid, start time, this pid namespace).
func TestEndFindsOwnersContainer(t *testing.T) {
	me := owner{pid: 4242, start: "777", pidns: "pid:[1]"}
	lab := func(id, pid, start, ns string) map[string]string {
		return map[string]string{LabelID: id, LabelOwnerPid: pid, LabelOwnerStart: start, LabelOwnerPidNS: ns}
	}
	d := newFakeDaemon(t, []engine.Summary{
		{ID: "other-id", Labels: lab("sb2", "4242", "777", "pid:[1]")},
		{ID: "other-start", Labels: lab("sb1", "4242", "778", "pid:[1]")},
		{ID: "other-ns", Labels: lab("sb1", "4242", "777", "pid:[2]")},
		{ID: "mine", Labels: lab("sb1", "4242", "777", "pid:[1]")},
	})
	c := d.client(t)
	if err := endContainer(t.Context(), c, "sb1", backendOwner(4242, 777), me); err != nil {
		t.Fatal(err)
	}
	if err := endContainer(t.Context(), c, "sb3", backendOwner(4242, 777), me); err == nil || !strings.Contains(err.Error(), "no container of sandbox sb3") {
		t.Errorf("a sandbox with no container: %v", err)
	}
	if got := d.killed(); len(got) != 1 || got[0] != "mine KILL" {
		t.Errorf("kills: %q; want [mine KILL]", got)
	}
}

func backendOwner(pid int, start uint64) backend.Owner { return backend.Owner{Pid: pid, Start: start} }

func jsonOut(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Write(b)
}

// BenchmarkPinInit: the cost the check adds to a docker launch (a pidfd,
// a status read, a namespace open and fstat, a liveness check).
func BenchmarkPinInit(b *testing.B) {
	pid, ns := otherInit(b)
	for b.Loop() {
		h := pinInit(pid, ns)
		if h.pid != pid {
			b.Fatal("not pinned")
		}
		h.close()
	}
}
