package docker

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/docker/gate"
)

// serveOnce runs the parent's side of one gate exchange and reports its
// error; on success it releases with env.
func serveOnce(g *startGate, env []string) chan error {
	done := make(chan error, 1)
	go func() {
		c, err := g.accept(time.Now().Add(5 * time.Second))
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		s, err := g.hello(c)
		if err != nil {
			done <- err
			return
		}
		if _, err := s.stat([]string{"/"}); err != nil {
			done <- err
			return
		}
		done <- s.release(env)
	}()
	return done
}

func TestGateReleasesOnceAndOnlyOnce(t *testing.T) {
	g, err := newGate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	token, path := g.token, filepath.Join(g.dir, "gate.sock")
	done := serveOnce(g, []string{"A=1"})
	rel, err := gate.Ask(path, token, gate.StatPaths)
	if err != nil || !slices.Equal(rel.Env, []string{"A=1"}) {
		t.Fatalf("first ask: %v, %v", rel, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select { // serveOnce closed its end, as a parent that dies would
	case <-rel.ParentGone:
	case <-time.After(5 * time.Second):
		t.Error("ParentGone did not close when the parent's end closed")
	}
	// The replay: same socket path, same token.
	if _, err := gate.Ask(path, token, gate.StatPaths); err == nil {
		t.Fatal("a second ask with the same token was released")
	}
}

func TestGateRefusesWrongToken(t *testing.T) {
	g, err := newGate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	done := serveOnce(g, nil)
	_, err = gate.Ask(filepath.Join(g.dir, "gate.sock"), "not-the-token", gate.StatPaths)
	if !errors.Is(err, gate.ErrNotReleased) {
		t.Fatalf("wrong token: %v; want ErrNotReleased", err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("server: %v", err)
	}
	if g.token != "" {
		t.Error("the token survived its first use")
	}
}

// TestSandboxSideImportsNoDockerClient keeps the packages the native
// sandbox is built from free of docker, moby and OpenTelemetry modules.
// It checks packages, not the binary: every sandbox's pid 1 runs the whole
// acbox binary, and Go runs the init of everything it links, so what pid 1
// really carries is checked by TestDeps in cmd/acbox.
func TestSandboxSideImportsNoDockerClient(t *testing.T) {
	for _, pkg := range []string{"nsjail", "bridge", "landlock"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/acbox/acbox/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/docker/") || strings.HasPrefix(dep, "github.com/moby/") || strings.HasPrefix(dep, "go.opentelemetry.io/") {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
