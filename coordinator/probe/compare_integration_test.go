//go:build integration

package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/docker/engine"
)

// compareImage is the docker image of the comparison: the one tests/docker
// builds (FROM scratch, the host's static busybox), built here if missing.
const compareImage = "acbox-test-busybox:1"

// TestBackendsAgree runs `acbox selftest --json` from ACBOX_BIN on the
// native and the docker backend, as root (the way CI runners do), and
// compares them probe by probe. It fails on any fail or error on either
// backend, on a probe whose verdicts differ (pass and skip too) unless it
// is one of the explained Differences (docs/backends.md), on a probe
// reported by one backend only, and on a listed difference neither reports.
func TestBackendsAgree(t *testing.T) {
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	if os.Getuid() != 0 {
		t.Skip("the comparison runs as root, the way CI runners do; run the integration suite as root")
	}
	native := selftestLines(t, bin, "--backend", Native)
	expectClean(t, Native, native)
	if why := dockerUnavailable(); why != "" {
		if os.Getenv("ACBOX_REQUIRE_DOCKER") != "" {
			t.Fatalf("ACBOX_REQUIRE_DOCKER is set (as in .ci/run) but the docker backend cannot be compared: %s", why)
		}
		t.Skipf("docker backend not compared: %s", why)
	}
	buildCompareImage(t)
	dock := selftestLines(t, bin, "--backend", Docker, "--image", compareImage)
	expectClean(t, Docker, dock)
	compareBackends(t, native, dock)
}

// selftestLines runs the suite and returns its lines by probe id.
func selftestLines(t *testing.T, bin string, args ...string) map[string]Line {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, append([]string{"selftest", "--json", "--all"}, args...)...)
	c.Dir = "/"
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("selftest %v did not finish in 5 minutes; stderr:\n%s", args, stderr.String())
	}
	out := map[string]Line{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var l Line
		if jerr := json.Unmarshal(sc.Bytes(), &l); jerr != nil || l.ID == "" {
			t.Errorf("selftest %v: not a result line: %q", args, sc.Text())
			continue
		}
		out[l.ID] = l
	}
	if len(out) < 35 {
		t.Fatalf("selftest %v: only %d result lines (exit %v); stderr:\n%s", args, len(out), err, stderr.String())
	}
	t.Logf("selftest %v: %d lines; %s", args, len(out), bytes.TrimSpace(stderr.Bytes()))
	return out
}

// expectClean requires no fail and no error on one backend.
func expectClean(t *testing.T, backend string, lines map[string]Line) {
	t.Helper()
	for _, id := range sortedIDs(lines) {
		if l := lines[id]; l.Result == Fail || l.Result == Error {
			t.Errorf("%s: %s %s: %s (expected: %s)", backend, l.Result, id, l.Detail, l.Expect)
		}
	}
}

// compareBackends applies the comparison rules; fails and errors on
// either side were reported by expectClean already.
func compareBackends(t *testing.T, native, dock map[string]Line) {
	t.Helper()
	all := map[string]Line{}
	for id, l := range native {
		all[id] = l
	}
	for id, l := range dock {
		all[id] = l
	}
	for _, id := range sortedIDs(all) {
		n, inN := native[id]
		d, inD := dock[id]
		switch {
		case !inN || !inD:
			t.Errorf("%s is reported by one backend only (native %v, docker %v)", id, inN, inD)
		case differs(n, d) && !Explained(id) && !(dockerSkips[id] && d.Result == Skip):
			t.Errorf("%s: native %s, docker %s, and not an explained difference (docs/backends.md): native %q; docker %q",
				id, n.Result, d.Result, n.Detail, d.Detail)
		}
	}
	for _, d := range Differences {
		if _, ok := all[d.ID]; !ok && !destructive(d.ID) {
			t.Errorf("explained difference %s: no backend reported it; remove it from Differences and docs/backends.md", d.ID)
		}
	}
}

// dockerSkips are lines the docker backend skips by design
// (docs/backends.md): it has no nested launches, no --net host and no
// user namespace to cap per-user counters in; its /etc is the image's;
// its member's streams are the Engine API's relay, never the user's
// terminal; its memory cgroup, not IPC limits, charges System V IPC.
var dockerSkips = map[string]bool{"life.nested-wider": true, "life.cross-sandbox-broker": true, "life.nested-unseen": true, "life.inotify-headroom": true, "net.host-connect-unlisted": true, "net.host-connect-listed": true,
	"net.host-bind": true, "net.host-abstract-unix": true, "net.host-mptcp": true,
	"net.host-fastopen-unlisted":   true,
	"net.host-listen-unbound":      true,
	"net.host-listen-nondumpable":  true,
	"life.delegate-binds-readonly": true, "life.etc-root-only": true, "life.terminal-kept": true,
	"res.ipc-within-memory": true}

// differs: any two verdicts that are not the same, except where a race
// scenario reports that its race did not happen this time (a skip that
// says so): that is chance, not a difference between the backends.
func differs(n, d Line) bool {
	return n.Result != d.Result && !raceNotRun(n) && !raceNotRun(d)
}

func raceNotRun(l Line) bool {
	return l.Result == Skip && strings.Contains(l.Detail, "race was not exercised")
}

func destructive(id string) bool {
	for _, p := range Catalogue() {
		if p.ID == id {
			return p.Destructive
		}
	}
	return false
}

func sortedIDs(m map[string]Line) []string {
	out := make([]string, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// dockerUnavailable says why the daemon cannot be used, or "".
func dockerUnavailable() string {
	c, err := engine.FromEnv()
	if err != nil {
		return "no docker client: " + err.Error()
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		return "the Docker daemon is unreachable: " + err.Error()
	}
	return ""
}

// buildCompareImage builds compareImage the way tests/docker does, unless
// it exists: /bin/busybox and its applet links, nothing else.
func buildCompareImage(t *testing.T) {
	t.Helper()
	if exec.Command("docker", "image", "inspect", compareImage).Run() == nil {
		return
	}
	b, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Skip("docker backend not compared: /bin/busybox missing; apt-get install busybox-static")
	}
	dir := t.TempDir()
	df := "FROM scratch\nCOPY busybox /bin/busybox\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "busybox"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("docker", "build", "-t", compareImage, dir).CombinedOutput(); err != nil {
		t.Fatalf("docker build %s: %v\n%s", compareImage, err, out)
	}
}
