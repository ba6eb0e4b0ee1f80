//go:build integration

package integration

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOrdinaryTools: the layers refuse what they must and nothing a build
// needs: a shell and coreutils, git (init, commit), python3, node and a Go
// build all work inside a sandbox with a write grant.
func TestOrdinaryTools(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, m)
		w := f.dir("w")
		script := `
set -e
cd ` + w + `
echo data | sort | wc -l >/dev/null && echo coreutils-ok
git init -q repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && echo git-ok && cd ..
python3 -c 'import json, socket, subprocess; subprocess.run(["true"]); print("python-ok")'
node -e 'require("child_process").execSync("true"); console.log("node-ok")'
mkdir hello && cd hello && printf 'package main\nfunc main() { println("hi") }\n' > main.go
GOCACHE=/tmp/gocache GOPATH=/tmp/gopath GO111MODULE=off GOTOOLCHAIN=local ` + goTool(t) + ` build -o hello . && ./hello 2>&1 && echo go-ok
`
		r := runBoxFor(t, m, 3*time.Minute, nil, "run", "-w", w, "--cwd", w, "--", "sh", "-c", script)
		for _, want := range []string{"coreutils-ok", "git-ok", "python-ok", "node-ok", "go-ok"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("missing %s\n%v", want, r)
			}
		}
	})
}

// goTool is the go command the sandbox can run: the one on this PATH, in
// a system directory the sandbox shows (make deps and .ci/run install
// node; Go is what builds acbox, so it is here).
func goTool(t *testing.T) string {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed (make deps installs it): %v", err)
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	p, _ = filepath.EvalSymlinks(p)
	return p
}
