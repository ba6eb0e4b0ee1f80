//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// TestStartupRegistry times `acbox run -- true` with an empty registry and
// with 20 other live sandboxes registered (their owner is this test
// process, so none is reaped), interleaved, and prints the ratio: the cost
// of admission (lock, reading every entry, checking every owner in /proc).
func TestStartupRegistry(t *testing.T) {
	bin := acboxBin(t)
	empty, full := benchState(t, 0), benchState(t, 20)
	var se, sf []time.Duration
	for range runs {
		for _, c := range []struct {
			env []string
			out *[]time.Duration
		}{{empty, &se}, {full, &sf}} {
			d, err := timeEnv(c.env, bin, "run", "--", "true")
			if err != nil {
				t.Fatal(err)
			}
			*c.out = append(*c.out, d)
		}
	}
	fmt.Printf("startup with the host registry, %d runs each, interleaved; %s\n", runs, machine())
	fmt.Printf("  %-22s median %7.2f ms  p90 %7.2f ms\n", "empty registry", ms(median(se)), ms(pct(se, 90)))
	fmt.Printf("  %-22s median %7.2f ms  p90 %7.2f ms\n", "20 sandboxes registered", ms(median(sf)), ms(pct(sf, 90)))
	fmt.Printf("  ratio 20 registered/empty: %.2f\n", float64(median(sf))/float64(median(se)))
}

// benchState makes a state and config directory with n live entries and
// max_sandboxes above n, and returns the environment that selects them.
func benchState(t *testing.T, n int) []string {
	dir := t.TempDir()
	run, cfg := filepath.Join(dir, "run"), filepath.Join(dir, "config")
	os.MkdirAll(filepath.Join(cfg, "acbox"), 0o700)
	os.WriteFile(filepath.Join(cfg, "acbox", "config.json"), []byte(`{"max_sandboxes": 100}`), 0o600)
	reg, err := registry.OpenRegistry(filepath.Join(run, "acbox"))
	if err != nil {
		t.Fatal(err)
	}
	plan := &policy.Plan{Backend: "native", Limits: policy.Limits{Memory: policy.DefaultMemory, Pids: policy.DefaultPids}}
	for i := range n {
		e, err := registry.NewEntry(plan, fmt.Sprintf("bench%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	return append(os.Environ(), "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME="+cfg)
}

func timeEnv(env []string, argv ...string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	start := time.Now()
	err := cmd.Run()
	return time.Since(start), err
}
