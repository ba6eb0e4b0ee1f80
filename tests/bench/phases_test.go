//go:build bench

package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// phases prints the medians of the setup phases the enforcement report
// records (helper setup, mounts and pivot, network, kernel layers).
func phases(t *testing.T, bin string) {
	dir := t.TempDir()
	got := map[string][]float64{}
	for i := 0; i < 50; i++ {
		rep := filepath.Join(dir, "r.json")
		if err := exec.Command(bin, "run", "--report", rep, "--", "true").Run(); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Phases map[string]float64 `json:"phases_ms"`
		}
		b, _ := os.ReadFile(rep)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		for k, v := range r.Phases {
			got[k] = append(got[k], v)
		}
	}
	fmt.Println("setup phases inside the sandbox (median of 50, ms):")
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := got[k]
		sort.Float64s(v)
		fmt.Printf("  %-18s %6.3f\n", k, v[len(v)/2])
	}
}
