//go:build integration

package egress

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientsThroughProxy: ordinary clients that honour the proxy variables
// reach an allowed origin through the bridge and the proxy without any
// configuration: git (smart HTTP is not needed: a dumb-HTTP clone) and a Go
// program using net/http, besides curl and python3 in TestEgressEndToEnd.
// The same clients over https: TestTLSClientsThroughProxy.
func TestClientsThroughProxy(t *testing.T) {
	w := newWorld(t)
	tools := toolsDir(t)
	out, _, code := w.run(t, "", "--allow", "origin.test", "--read", tools, "--", "sh", "-c",
		`git clone -q http://origin.test/repo.git /tmp/c 2>&1 && test -f /tmp/c/README && echo git=ok
echo go=$(`+tools+`/goget http://origin.test/)`)
	if code != 0 || !strings.Contains(out, "git=ok") || !strings.Contains(out, "go=200") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// toolsDir builds the Go client into a directory the sandbox may read.
func toolsDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "acbox-egress-tools-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte(`package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	r, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(r.StatusCode)
}
`), 0o644)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "goget"), src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the Go client: %v\n%s", err, out)
	}
	return dir
}

// serveRepo makes dir/repo.git a bare repository with one commit, ready to
// be cloned over dumb HTTP.
func serveRepo(t *testing.T, dir string) {
	work := t.TempDir()
	run := func(d string, args ...string) {
		c := exec.Command("git", args...)
		c.Dir = d
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(work, "init", "-q", "src")
	os.WriteFile(filepath.Join(work, "src", "README"), []byte("origin repo\n"), 0o644)
	run(filepath.Join(work, "src"), "add", "README")
	run(filepath.Join(work, "src"), "commit", "-q", "-m", "first")
	run(work, "clone", "-q", "--bare", filepath.Join(work, "src"), filepath.Join(dir, "repo.git"))
	run(filepath.Join(dir, "repo.git"), "update-server-info")
}
