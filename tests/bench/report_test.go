//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestReportGrant prints `acbox run --report` with a write grant of 19,999
// directories (near the exit scan's cap) against the same launch without
// --report, interleaved. Without --report the grant is walked once, after
// the run; with it also before, and every entry is recorded. Target:
// with/without <= 1.5.
func TestReportGrant(t *testing.T) {
	bin := acboxBin(t)
	grant := t.TempDir()
	if err := os.Chmod(grant, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 198; i++ { // 198 x 100 directories, their 198 parents and the grant: 19,999, just under the repository search's limit
		for j := 0; j < 100; j++ {
			if err := os.MkdirAll(filepath.Join(grant, fmt.Sprint(i), fmt.Sprint(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	cs := []contender{
		{"without --report", []string{bin, "run", "-w", grant, "--", "true"}},
		{"with --report", []string{bin, "run", "-w", grant, "--report", rep, "--", "true"}},
	}
	env := roomyConfig(t)
	const n = 15
	s := map[string][]time.Duration{}
	for i := 0; i < n; i++ {
		for _, c := range cs {
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Env = env
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			s[c.name] = append(s[c.name], d)
		}
	}
	fmt.Printf("a write grant of 19,999 directories, median of %d, interleaved; %s\n", n, machine())
	for _, c := range cs {
		fmt.Printf("  %-18s %8.2f ms\n", c.name, ms(median(s[c.name])))
	}
	fmt.Printf("  ratio with/without --report: %.2f (target <= 1.5)\n", float64(median(s["with --report"]))/float64(median(s["without --report"])))
}
