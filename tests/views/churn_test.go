//go:build integration

package views

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// The host keeps changing while a launch snapshots a directory (a shared
// /tmp, a cache other programs clean): entries vanish, are replaced by
// rename, change type, and directories the plan snapshots (child views)
// are swapped or deleted and recreated. Every launch must still start, and
// no masked name, nor its content, may ever be visible inside.
//
//	churn/plain        never touched (control)
//	churn/fNNN         deleted, recreated, renamed over, turned into a
//	                   directory or a symlink, in a loop
//	churn/hidden       --exclude; renamed over with new content
//	churn/sub/hidden2  --exclude; sub is swapped (RENAME_EXCHANGE) for a new one
//	churn/v/p3         ACBOX_PRIVATE; v is deleted and recreated
//
// New content is made in stage/ (outside churn) and renamed in, so no
// secret is ever at an unmasked name on the host.
func TestSnapshotToleratesHostChurn(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			churn, stage := filepath.Join(f.data, "churn"), filepath.Join(f.data, "stage")
			f.mkdir(t, churn)
			f.mkdir(t, stage)
			f.file(t, filepath.Join(churn, "plain"), "plain")
			c := churner{churn: churn, stage: stage}
			for i := range churnNames {
				os.WriteFile(c.name(i), []byte("x"), 0o644)
			}
			must(t, c.swapFile("hidden"), c.swapSub(), c.recreateV())
			stop := c.run()
			defer stop()
			ps := []probe{
				{"control", "grep -q plain churn/plain", true},
				{"secret", "grep -rqs " + secret + " churn", false},
				{"hidden", "test -e churn/hidden || test -L churn/hidden", false},
				{"hidden2", "test -e churn/sub/hidden2", false},
				{"p3", "test -e churn/v/p3", false},
			}
			// The host view (anchor at the home or /root), and the grants
			// view (anchor at the read grant; no private path may lie in it).
			host := []string{"run", "--view", "host", "--exclude", "churn/hidden", "--exclude", "churn/sub/hidden2", "--", "sh", "-c", script(ps)}
			gps := append([]probe{ps[0], {"secret", "grep -rqs --exclude-dir=v " + secret + " churn", false}}, ps[2:4]...)
			grants := []string{"run", "--read", f.data, "--exclude", "churn/hidden", "--exclude", "churn/sub/hidden2", "--", "sh", "-c", script(gps)}
			env := []string{"ACBOX_PRIVATE=" + filepath.Join(churn, "v", "p3")}
			for i := range 30 {
				view, args, e, want := "host", host, env, ps
				if i%3 == 2 {
					view, args, e, want = "grants", grants, nil, gps
				}
				out, errs, code := w.acboxEnv(t, f.data, e, args...)
				if code != 0 {
					t.Fatalf("launch %d (%s view): exit %d\n%s", i, view, code, errs)
				}
				checkProbes(t, want, out)
			}
			if n := c.ops(); n < 100 {
				t.Errorf("the host changed only %d times during the launches: the test raced nothing", n)
			}
		})
	}
}

const churnNames = 150

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// churner changes churn/ in a loop until stopped.
type churner struct {
	churn, stage string
	mu           sync.Mutex
	n            int
}

func (c *churner) name(i int) string {
	return filepath.Join(c.churn, fmt.Sprintf("f%03d", i%churnNames))
}

func (c *churner) ops() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *churner) run() func() {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			c.step(i)
			c.mu.Lock()
			c.n++
			c.mu.Unlock()
		}
	}()
	return func() { close(done); <-stopped }
}

// step is one host change; errors are races with itself and do not matter.
func (c *churner) step(i int) {
	p := c.name(i * 7)
	switch i % 8 {
	case 0, 4:
		os.RemoveAll(p)
		os.WriteFile(p, []byte("x"), 0o644)
	case 1:
		tmp := filepath.Join(c.stage, "f")
		os.WriteFile(tmp, []byte("y"), 0o644)
		os.Rename(tmp, p)
	case 2:
		os.RemoveAll(p)
		os.Mkdir(p, 0o755)
		os.WriteFile(filepath.Join(p, "in"), []byte("z"), 0o644)
	case 3:
		os.RemoveAll(p)
		os.Symlink("hidden", p)
	case 5:
		c.swapFile("hidden")
	case 6:
		c.swapSub()
	case 7:
		c.recreateV()
	}
}

// swapFile renames a new file with the secret over churn/name.
func (c *churner) swapFile(name string) error {
	tmp := filepath.Join(c.stage, name)
	if err := os.WriteFile(tmp, []byte(secret), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(c.churn, name))
}

// swapSub exchanges churn/sub for a new directory holding hidden2 and a
// plain file, then removes the old one: sub always exists, a new inode.
func (c *churner) swapSub() error {
	n := filepath.Join(c.stage, "sub")
	os.RemoveAll(n)
	if err := os.Mkdir(n, 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(n, "hidden2"), []byte(secret), 0o644)
	os.WriteFile(filepath.Join(n, "ok"), []byte("ok"), 0o644)
	sub := filepath.Join(c.churn, "sub")
	if err := unix.Renameat2(unix.AT_FDCWD, n, unix.AT_FDCWD, sub, unix.RENAME_EXCHANGE); err != nil {
		if !strings.Contains(err.Error(), "no such file") {
			return err
		}
		return os.Rename(n, sub)
	}
	return os.RemoveAll(n)
}

// recreateV deletes churn/v and puts a new one with p3 in its place.
func (c *churner) recreateV() error {
	n := filepath.Join(c.stage, "v")
	os.RemoveAll(n)
	if err := os.Mkdir(n, 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(n, "p3"), []byte(secret), 0o644)
	os.RemoveAll(filepath.Join(c.churn, "v"))
	return os.Rename(n, filepath.Join(c.churn, "v"))
}
