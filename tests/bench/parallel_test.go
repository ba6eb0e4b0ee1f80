//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestParallel prints launches per second with 4 and 16 launchers running
// `acbox run -- true` (and the comparable bubblewrap) back to back, as a CI
// runner does: there CPU, not wall time, bounds a launch. Rounds alternate
// acbox and bubblewrap; the median round counts. Target: acbox/bubblewrap
// >= 0.7.
func TestParallel(t *testing.T) {
	bin := acboxBin(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed")
	}
	fmt.Printf("launches per second, parallel launchers, median of 3 alternating rounds; %s\n", machine())
	env := roomyConfig(t)
	for _, par := range []int{4, 16} {
		var a, b []float64
		for r := 0; r < 3; r++ {
			a = append(a, rate(t, par, env, []string{bin, "run", "--", "true"}))
			b = append(b, rate(t, par, nil, bwrapComparable()))
		}
		ma, mb := medianF(a), medianF(b)
		fmt.Printf("  %2d launchers: acbox %6.1f/s  bwrap %6.1f/s  ratio %.2f (target >= 0.7)\n", par, ma, mb, ma/mb)
	}
}

// rate runs par launchers, each 160/par launches of argv (environment
// env, or this process's when nil), and returns launches per second.
func rate(t *testing.T, par int, env, argv []string) float64 {
	const total = 160
	var wg sync.WaitGroup
	errs := make(chan error, par)
	start := time.Now()
	for i := 0; i < par; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < total/par; j++ {
				c := exec.Command(argv[0], argv[1:]...)
				c.Env = env
				if out, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("%w: %s", err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatalf("%v: %v", argv[:2], err)
	}
	return float64(total/par*par) / time.Since(start).Seconds()
}

// roomyConfig points acbox at a config that lifts the host's admission cap
// (other sandboxes on the machine count against it too), so that a
// parallel benchmark measures launches, not refusals.
func roomyConfig(t *testing.T) []string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "acbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acbox", "config.json"), []byte(`{"max_sandboxes": 64}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "XDG_CONFIG_HOME="+dir)
}
