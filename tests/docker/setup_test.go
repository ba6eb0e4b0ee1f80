//go:build integration

// Package docker_test runs the docker backend against the real Docker
// Engine on this host: a test image built locally FROM scratch with the
// host's static busybox, the acbox binary from ACBOX_BIN, no registry and
// no network (every container has network none). It runs as the test
// process's user; as root, the way CI runners do.
package docker_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/docker/engine"
)

// image is the test image: /bin/busybox and its applet links, nothing else.
const image = "acbox-test-busybox:1"

// env is what every test needs: the acbox binary and a daemon with the
// test image.
type env struct {
	bin string
	c   *engine.Client
}

func setup(t *testing.T) *env {
	t.Helper()
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration` (it needs the static acbox binary)")
	}
	c, err := engine.FromEnv()
	if err != nil {
		skipOrFail(t, "no docker client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()); err != nil {
		skipOrFail(t, "no Docker daemon: %v", err)
	}
	buildImage(t, c)
	return &env{bin: bin, c: c}
}

// buildImage builds the test image once per run unless it exists.
func buildImage(t *testing.T, c *engine.Client) {
	if _, err := c.ImageInspect(context.Background(), image); err == nil {
		return
	}
	if _, err := os.Stat("/bin/busybox"); err != nil {
		skipOrFail(t, "/bin/busybox missing; apt-get install busybox-static")
	}
	dir := t.TempDir()
	b, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "busybox"), b, 0o755)
	df := "FROM scratch\nCOPY busybox /bin/busybox\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n"
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644)
	if out, err := exec.Command("docker", "build", "-t", image, dir).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
}

// result is one acbox run.
type result struct {
	code        int
	out, errout string
}

// run runs `acbox run --backend docker --image IMAGE ARGS...` with stdin.
func (e *env) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	a := append([]string{"run", "--backend", "docker", "--image", image, "--no-tty"}, args...)
	cmd := exec.Command(e.bin, a...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errout
	cmd.Dir = "/"
	err := cmd.Run()
	r := result{out: out.String(), errout: withoutNotes(errout.String())}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("acbox: %v", err)
	}
	return r
}

// sh runs a busybox shell script in the sandbox.
func (e *env) sh(t *testing.T, script string, flags ...string) result {
	return e.run(t, "", append(flags, "--", "sh", "-c", script)...)
}

// dirs makes a read grant holding "ro-file" and a write grant, outside /tmp
// so that the tests also cover binds that are not under a tmpfs.
func dirs(t *testing.T) (ro, rw string) {
	base, err := os.MkdirTemp("/var/tmp", "acbox-docker-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ro, rw = filepath.Join(base, "ro"), filepath.Join(base, "rw")
	os.Mkdir(ro, 0o755)
	os.Mkdir(rw, 0o755)
	os.WriteFile(filepath.Join(ro, "ro-file"), []byte("readable\n"), 0o644)
	return ro, rw
}

// containers lists acbox containers whose id label is id ("" for all).
func (e *env) containers(t *testing.T, id string) []engine.Summary {
	labels := []string{docker.LabelOwnerPid}
	if id != "" {
		labels = append(labels, docker.LabelID+"="+id)
	}
	list, err := e.c.ContainerList(context.Background(), labels...)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// noneLeft requires that no acbox container is left on the daemon (the
// tests run one at a time).
func (e *env) noneLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(e.containers(t, "")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("acbox containers left behind: %v", e.containers(t, "")[0].Names)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// skipOrFail skips, or fails where the docker backend must be tested
// (ACBOX_REQUIRE_DOCKER, set by .ci/run).
func skipOrFail(t *testing.T, f string, a ...any) {
	t.Helper()
	if os.Getenv("ACBOX_REQUIRE_DOCKER") != "" {
		t.Fatalf("ACBOX_REQUIRE_DOCKER is set but: "+f, a...)
	}
	t.Skipf(f, a...)
}

// withoutNotes drops acbox's own "acbox: note:" lines (the current
// directory is not granted: these tests run from /), leaving the member's
// standard error.
func withoutNotes(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "acbox: note: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
