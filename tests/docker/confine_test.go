//go:build integration

package docker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestGrantsEnforced(t *testing.T) {
	e := setup(t)
	ro, rw := dirs(t)
	r := e.sh(t, `cat `+ro+`/ro-file; echo x > `+ro+`/new && echo WROTE-RO; echo y > `+rw+`/out && echo WROTE-RW; touch /rootfs-file && echo WROTE-ROOT; exit 0`,
		"-r", ro, "-w", rw)
	if r.code != 0 || !strings.Contains(r.out, "readable") || !strings.Contains(r.out, "WROTE-RW") {
		t.Fatalf("code %d\nout: %s\nerr: %s", r.code, r.out, r.errout)
	}
	if strings.Contains(r.out, "WROTE-RO") || strings.Contains(r.out, "WROTE-ROOT") {
		t.Errorf("wrote to a read-only grant or the root: %s", r.out)
	}
	if _, err := os.Stat(filepath.Join(ro, "new")); err == nil {
		t.Error("a file appeared in the read-only grant")
	}
	e.noneLeft(t)
}

func TestWrittenFilesOwnedByUser(t *testing.T) {
	e := setup(t)
	_, rw := dirs(t)
	r := e.sh(t, `echo y > `+rw+`/owned; id -u; id -g; id -G`, "-w", rw)
	want := strconv.Itoa(os.Getuid()) + "\n" + strconv.Itoa(os.Getgid()) + "\n" + strconv.Itoa(os.Getgid()) + "\n"
	if r.code != 0 || r.out != want {
		t.Fatalf("code %d, ids %q; want %q\n%s", r.code, r.out, want, r.errout)
	}
	st, err := os.Stat(filepath.Join(rw, "owned"))
	if err != nil {
		t.Fatal(err)
	}
	if uid, gid := fileOwner(st); uid != os.Getuid() || gid != os.Getgid() {
		t.Errorf("file owned by %d:%d; want %d:%d", uid, gid, os.Getuid(), os.Getgid())
	}
}

func TestHostAndDockerSocketUnreachable(t *testing.T) {
	e := setup(t)
	ro, _ := dirs(t)
	secret := filepath.Join(filepath.Dir(ro), "secret")
	os.WriteFile(secret, []byte("s"), 0o644)
	r := e.sh(t, `for p in `+secret+` /var/run/docker.sock /run/docker.sock /etc/passwd /etc/shadow /root/.bashrc /usr /home; do test -e $p && echo SEEN $p; done; exit 0`, "-r", ro)
	if r.code != 0 || strings.Contains(r.out, "SEEN") {
		t.Fatalf("code %d; host paths visible:\n%s%s", r.code, r.out, r.errout)
	}
}

func TestPrivilegesDropped(t *testing.T) {
	e := setup(t)
	r := e.sh(t, `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status; ls /proc | grep -c '^[0-9]'; tr '\0' ' ' < /proc/1/cmdline; echo; touch /x 2>/dev/null || echo RO-ROOT`)
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.errout)
	}
	for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "CapPrm:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2", "RO-ROOT", "docker-init"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("missing %q in:\n%s", want, r.out)
		}
	}
	// Private pids: docker's init, acbox's init, the shell and its pipeline.
	lines := strings.Split(r.out, "\n")
	if n, _ := strconv.Atoi(lines[7]); n == 0 || n > 8 {
		t.Errorf("%s processes visible; want only the container's own", lines[7])
	}
}

func TestNoDirectNetwork(t *testing.T) {
	e := setup(t)
	r := e.sh(t, `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`)
	if r.code != 0 || strings.TrimSpace(r.out) != "lo" {
		t.Fatalf("code %d; interfaces %q; want only lo\n%s", r.code, r.out, r.errout)
	}
}

// TestProxyRefusesDisallowedHost asks the proxy, through the in-container
// bridge, for a host not on the allowlist: refused before any lookup, so
// no packet leaves this host.
func TestProxyRefusesDisallowedHost(t *testing.T) {
	e := setup(t)
	r := e.sh(t, `printf 'CONNECT refused.invalid:443 HTTP/1.1\r\nHost: refused.invalid:443\r\n\r\n' | nc 127.0.0.1 3128 | head -n 1`, "--allow", "allowed.invalid")
	if r.code != 0 || !strings.Contains(r.out, "403") {
		t.Fatalf("code %d; answer %q; want 403\n%s", r.code, r.out, r.errout)
	}
}

func TestExitStatusAndStdin(t *testing.T) {
	e := setup(t)
	r := e.run(t, "hello\n", "--", "sh", "-c", `read x; echo "got $x"; echo err >&2; exit 7`)
	if r.code != 7 || r.out != "got hello\n" || r.errout != "err\n" {
		t.Fatalf("code %d out %q err %q; want 7, \"got hello\", \"err\"", r.code, r.out, r.errout)
	}
	e.noneLeft(t)
}

// TestImageWithVolumesRefused: an image VOLUME would add an anonymous
// volume the plan does not have.
func TestImageWithVolumesRefused(t *testing.T) {
	e := setup(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM "+image+"\nVOLUME /data\n"), 0o644)
	if out, err := exec.Command("docker", "build", "-t", "acbox-test-volume:1", dir).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	cmd := exec.Command(e.bin, "run", "--backend", "docker", "--image", "acbox-test-volume:1", "--no-tty", "--", "true")
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(string(out), "declares volumes") {
		t.Fatalf("%v: %s; want exit 125 naming the volumes", err, out)
	}
	e.noneLeft(t)
}
