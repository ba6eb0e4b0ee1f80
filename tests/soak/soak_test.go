//go:build soak

// Package soak runs many sandboxes from one long-lived parent, this test
// binary, through the Go API (policy.Resolve, the host registry and
// a run directory per sandbox as `acbox run` makes them, nsjail.Launch),
// and shows that nothing grows: the parent's open descriptors, goroutines,
// heap and RSS, the host's mount count, the user's processes, registry
// entries, files under the state directory's run/, and (docker) the
// containers. The binary doubles as the sandbox's helper: TestMain hands
// over to nsjail.HelperMain when it is started as one.
//
//	make build && ACBOX_BIN=$PWD/bin/acbox go test -tags soak -count=1 -v -timeout 15m ./tests/soak/
//
// ACBOX_BIN (the static binary) is needed only by the docker subtest, which
// runs when the daemon is reachable and ACBOX_SOAK_IMAGE (default
// acbox-test-busybox:1, which `make integration` builds) exists.
package soak

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

func TestMain(m *testing.M) {
	if nsjail.IsHelper() {
		nsjail.HelperMain() // never returns
	}
	os.Exit(m.Run())
}

const (
	total    = 1000
	parallel = 20
	warmup   = 20
	dockerN  = 50
)

// world is what every launch shares: the host, a grant and a private state
// directory, and /dev/null as the member's stdio.
type world struct {
	host  policy.Host
	grant string
	reg   *registry.Registry
	null  *os.File
	cap   registry.Cap
}

func newWorld(t *testing.T) *world {
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("/tmp", "acbox-soak-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	h.StateDir = filepath.Join(base, "state")
	h.Cwd = base
	w := &world{host: h, grant: filepath.Join(base, "work")}
	os.Mkdir(w.grant, 0o755)
	if w.reg, err = registry.OpenRegistry(h.StateDir); err != nil {
		t.Fatal(err)
	}
	mem, err := policy.HostMemory()
	if err != nil {
		t.Fatal(err)
	}
	w.cap = registry.ComputeCap(mem, policy.DefaultMemory, 4*parallel) // admission is not under test
	if w.null, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.null.Close() })
	return w
}

// one runs a sandbox the way `acbox run` does: resolve, admit into the
// registry, a private run directory, launch, release.
func (w *world) one(b backend.Backend, spec policy.Spec) error {
	plan, err := policy.Resolve(spec, w.host)
	if err != nil {
		return err
	}
	id := backend.NewID()
	run := w.reg.RunDir(id)
	if err := os.MkdirAll(run, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(run)
	e, err := registry.NewEntry(plan, id)
	if err != nil {
		return err
	}
	if _, err := w.reg.Admit(e, w.cap); err != nil {
		return err
	}
	defer w.reg.Remove(id)
	// The sandbox's stderr goes to a file that is shown when it fails.
	stderr, err := os.CreateTemp(run, "stderr")
	if err != nil {
		return err
	}
	defer stderr.Close()
	out, err := b.Launch(plan, backend.LaunchIO{ID: id, Stdin: w.null, Stdout: w.null, Stderr: stderr})
	if err != nil {
		msg, _ := os.ReadFile(stderr.Name())
		return fmt.Errorf("sandbox %s: %w\nits stderr: %s", id, err, msg)
	}
	if out.Code != 0 {
		return fmt.Errorf("sandbox %s exited %d", id, out.Code)
	}
	return nil
}

// many runs n sandboxes, width at a time, and returns the first error.
func (w *world) many(b backend.Backend, spec policy.Spec, n, width int) error {
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range width {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				errs <- w.one(b, spec)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestSoakNative(t *testing.T) {
	w := newWorld(t)
	spec := policy.Spec{Command: []string{"/bin/true"}, Access: policy.Access{Write: []string{w.grant}}, Cwd: w.grant}
	b := nsjail.Backend{}
	if err := w.many(b, spec, warmup, parallel); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	before := measure(w)
	stop := watchCgroups(t)
	for _, c := range []struct {
		name  string
		width int
	}{{"sequential", 1}, {"20 at a time", parallel}} {
		start := time.Now()
		if err := w.many(b, spec, total, c.width); err != nil {
			stop()
			t.Fatalf("%s: %v", c.name, err)
		}
		d := time.Since(start)
		t.Logf("%d sandboxes %s: %v (%.1f ms each, %.1f per second)", total, c.name, d.Round(time.Millisecond),
			float64(d.Milliseconds())/total, total/d.Seconds())
	}
	stop()
	compare(t, before, settle(w, before))
}

func TestSoakDocker(t *testing.T) {
	image := os.Getenv("ACBOX_SOAK_IMAGE")
	if image == "" {
		image = "acbox-test-busybox:1"
	}
	exe := os.Getenv("ACBOX_BIN")
	switch {
	case exe == "":
		t.Skip("ACBOX_BIN (the static acbox binary, the container's init) is not set")
	case exec.Command("docker", "image", "inspect", image).Run() != nil && os.Getenv("ACBOX_REQUIRE_DOCKER") != "":
		t.Fatalf("ACBOX_REQUIRE_DOCKER is set but the Docker daemon is not reachable or image %s is missing", image)
	case exec.Command("docker", "image", "inspect", image).Run() != nil:
		t.Skipf("the Docker daemon is not reachable or image %s is missing (make integration builds it)", image)
	}
	w := newWorld(t)
	spec := policy.Spec{Backend: "docker", Image: image, Command: []string{"/bin/true"},
		Access: policy.Access{Write: []string{w.grant}}, Cwd: w.grant}
	b := docker.Backend{Exe: exe, RunDir: filepath.Dir(w.grant)}
	if err := w.many(b, spec, 2, 1); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	before := measure(w)
	start := time.Now()
	if err := w.many(b, spec, dockerN, 1); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("%d containers sequential: %v (%.0f ms each)", dockerN, d.Round(time.Millisecond), float64(d.Milliseconds())/dockerN)
	compare(t, before, settle(w, before))
}
