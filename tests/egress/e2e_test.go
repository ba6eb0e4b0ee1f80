//go:build integration

package egress

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// world is the fixture:
//
//	netns <client>  acbox and its proxy run here; veth 93.184.0.2/24
//	netns <origin>  an HTTP server on 93.184.0.1:80 (and :8080)
//	/etc/netns/<client>/hosts: origin.test and other.test -> 93.184.0.1,
//	private.test -> 10.0.0.5, loop.test -> 127.0.0.1
//
// `ip netns exec` binds that hosts file over /etc/hosts, so the proxy's
// resolver reads it; the sandbox itself has no route anywhere.
type world struct {
	client, origin string
	bin            string
}

const originIP = "93.184.0.1"

func newWorld(t *testing.T) *world {
	if os.Getuid() != 0 {
		t.Skip("the end-to-end egress test creates network namespaces and needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("iproute2 (ip) is not installed")
	}
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	sfx := fmt.Sprint(os.Getpid())
	w := &world{client: "acbox-c" + sfx, origin: "acbox-o" + sfx, bin: bin}
	t.Cleanup(w.close)
	w.must(t, "ip", "netns", "add", w.client)
	w.must(t, "ip", "netns", "add", w.origin)
	w.must(t, "ip", "link", "add", "v0", "netns", w.client, "type", "veth", "peer", "name", "v1", "netns", w.origin)
	w.must(t, "ip", "-n", w.client, "addr", "add", "93.184.0.2/24", "dev", "v0")
	w.must(t, "ip", "-n", w.origin, "addr", "add", originIP+"/24", "dev", "v1")
	for _, ns := range []string{w.client, w.origin} {
		w.must(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	w.must(t, "ip", "-n", w.client, "link", "set", "v0", "up")
	w.must(t, "ip", "-n", w.origin, "link", "set", "v1", "up")
	hosts := fmt.Sprintf("127.0.0.1 localhost\n%s origin.test other.test\n10.0.0.5 private.test\n127.0.0.1 loop.test\n", originIP)
	dir := filepath.Join("/etc/netns", w.client)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	w.serveOrigin(t)
	return w
}

func (w *world) must(t *testing.T, argv ...string) {
	t.Helper()
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// serveOrigin runs a small HTTP server in the origin namespace.
func (w *world) serveOrigin(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("hello from origin\n"), 0o644)
	serveRepo(t, dir)
	for _, port := range []string{"80", "8080"} {
		cmd := exec.Command("ip", "netns", "exec", w.origin, "python3", "-m", "http.server", port, "--bind", originIP, "--directory", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	w.waitOrigin(t)
}

func (w *world) waitOrigin(t *testing.T) {
	for i := 0; i < 100; i++ {
		out, _ := exec.Command("ip", "netns", "exec", w.client, "curl", "-s", "-m", "1", "http://"+originIP+"/").Output()
		if strings.Contains(string(out), "hello") {
			return
		}
		exec.Command("sleep", "0.1").Run()
	}
	t.Fatal("origin server did not come up")
}

func (w *world) close() {
	exec.Command("ip", "netns", "del", w.client).Run()
	exec.Command("ip", "netns", "del", w.origin).Run()
	os.RemoveAll(filepath.Join("/etc/netns", w.client))
}

// run starts acbox in the client namespace, as root or as user, with its
// event stream on fd 3 captured.
func (w *world) run(t *testing.T, user string, args ...string) (stdout, events string, code int) {
	t.Helper()
	// Not `ip netns exec`: it mounts a fresh /sys, which hides the cgroup
	// hierarchy acbox needs as root. Enter the network namespace, and bind
	// the hosts file over /etc/hosts in a private mount namespace.
	hosts := filepath.Join("/etc/netns", w.client, "hosts")
	inner := append([]string{"sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts}, wrapUser(user, append([]string{w.bin, "run", "--status-fd", "3"}, args...))...)
	argv := append([]string{"nsenter", "--net=/var/run/netns/" + w.client, "unshare", "-m", "--propagation", "private"}, inner...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	r, wr, _ := os.Pipe()
	cmd.ExtraFiles = []*os.File{wr}
	err := cmd.Start()
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	ev := readAll(r)
	cmd.Wait()
	if errb.Len() > 0 {
		t.Logf("stderr: %s", errb.String())
	}
	return out.String(), <-ev, cmd.ProcessState.ExitCode()
}

func wrapUser(user string, argv []string) []string {
	if user == "" {
		return argv
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return []string{"su", user, "-s", "/bin/sh", "-c", strings.Join(q, " ") + " 3>&3"}
}

func readAll(f *os.File) chan string {
	ch := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(f)
		f.Close()
		ch <- b.String()
	}()
	return ch
}
