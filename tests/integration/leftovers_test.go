//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNothingLeftBehind: after sandboxes that exit normally, die of a
// signal, are refused, fail during setup, or lose acbox to SIGKILL, the host
// has no new mounts, no process of theirs, and no new file in /tmp.
//
// It does not call t.Parallel: it runs while the parallel tests are held,
// so the before/after snapshots see only its own sandboxes. /tmp is shared
// with everything else on the host, so the /tmp check is narrowed: in user
// mode to entries owned by the test user, in root mode to names that look
// like acbox's.
func TestNothingLeftBehind(t *testing.T) {
	if setupErr != "" {
		t.Skip(setupErr)
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.skip != "" {
				t.Skip(m.skip)
			}
			fx := newFixture(t, m)
			mountsBefore := hostMounts(t)
			tmpBefore := tmpEntries(t)
			mk := newMarker()
			exerciseSandboxes(t, m, fx, mk)
			if left := waitGone(mk); len(left) > 0 {
				t.Errorf("processes of the sandboxes are still running: %s", describe(left))
				killAll(left)
			}
			mountsAfter := hostMounts(t)
			for mp := range mountsAfter {
				// The Docker daemon's own mounts come and go with other
				// suites' containers; acbox's native backend makes none there.
				if strings.HasPrefix(mp, "/var/lib/docker/") || strings.HasPrefix(mp, "/run/docker/") {
					continue
				}
				if !mountsBefore[mp] {
					t.Errorf("new mount on the host: %s", mp)
				}
			}
			for name, uid := range tmpEntries(t) {
				if _, ok := tmpBefore[name]; ok || "/tmp/"+name == suiteRoot {
					continue
				}
				if (m.name == "user" && uid == m.uid) || acboxLike.MatchString(name) {
					t.Errorf("new entry in the host's /tmp after the runs: /tmp/%s (uid %d)", name, uid)
				}
			}
		})
	}
}

var acboxLike = regexp.MustCompile(`(?i)acbox|nsjail|landlock|seccomp|sandbox`)

// exerciseSandboxes runs one sandbox of each ending; mk marks their
// processes.
func exerciseSandboxes(t *testing.T, m mode, fx *fixture, mk string) {
	w := fx.dir("w")
	file := fx.file("f", "x\n")
	runs := []struct {
		name string
		args []string
	}{
		{"normal", []string{"run", "-w", w, "--cwd", w, "--tmpfs", "/scratch:1MiB", "--mount", file + ":/srv/f:ro", "--",
			"sh", "-c", "echo x > /tmp/t; echo x > $HOME/h; echo x > /scratch/s; echo " + mk}},
		{"signal", []string{"run", "--", "sh", "-c", "sleep " + mk + " & kill -TERM $$"}},
		{"refused", []string{"run", "-w", "/tmp", "--", "true"}},
		{"setup failure", []string{"run", "--mount", w + ":/opt/acbox-it-missing-" + randHex(3), "--", "true"}},
		{"status probe", []string{"status"}},
	}
	for _, r := range runs {
		res := runBox(t, m, r.args...)
		t.Logf("%s: exit %d", r.name, res.code)
	}
	b := startBox(t, m, "run", "--", "sh", "-c", "setsid sleep "+mk+" & (sleep "+mk+" &); echo ready; sleep "+mk)
	b.waitLine(t, "ready")
	time.Sleep(100 * time.Millisecond)
	b.cmd.Process.Signal(syscall.SIGKILL)
	b.wait(t, 5*time.Second)
}

// hostMounts is the set of mount points in the test process's mount
// namespace (the host's, for a test run outside any sandbox).
func hostMounts(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			out[f[4]] = true
		}
	}
	return out
}

// tmpEntries maps each entry of /tmp to its owner.
func tmpEntries(t *testing.T) map[string]int {
	t.Helper()
	ents, err := os.ReadDir("/tmp")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range ents {
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join("/tmp", e.Name()), &st) == nil {
			out[e.Name()] = int(st.Uid)
		}
	}
	return out
}
