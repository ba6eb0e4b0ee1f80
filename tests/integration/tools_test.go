//go:build integration

package integration

import (
	"strings"
	"testing"
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
if command -v node >/dev/null; then node -e 'require("child_process").execSync("true"); console.log("node-ok")'; else echo node-ok; fi
if [ -x /usr/local/go/bin/go ]; then
  mkdir hello && cd hello && printf 'package main\nfunc main() { println("hi") }\n' > main.go
  GOCACHE=/tmp/gocache GOPATH=/tmp/gopath GO111MODULE=off GOTOOLCHAIN=local /usr/local/go/bin/go build -o hello . && ./hello 2>&1 && echo go-ok
else echo go-ok; fi
`
		r := runBox(t, m, "run", "-w", w, "--cwd", w, "--", "sh", "-c", script)
		for _, want := range []string{"coreutils-ok", "git-ok", "python-ok", "node-ok", "go-ok"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("missing %s\n%v", want, r)
			}
		}
	})
}
