//go:build integration

package lifecycle

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestAdmissionRace starts 12 launches at once against max_sandboxes 3:
// exactly 3 run, the others are refused with the cap, the count and the
// remedy named, and exit 125.
func TestAdmissionRace(t *testing.T) {
	eachUser(t, func(t *testing.T, r *runner) {
		r.writeConfig(t, `{"max_sandboxes": 3}`)
		const n = 12
		codes := make([]int, n)
		stderrs := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, stderrs[i], codes[i] = r.run(t, "run", "--", "sleep", "4")
			}()
		}
		wg.Wait()
		ran, refused := 0, 0
		for i, c := range codes {
			switch c {
			case 0:
				ran++
			case policy.ExitRefused:
				refused++
				for _, want := range []string{"cap is 3", "already run", "acbox stop", "max_sandboxes"} {
					if !strings.Contains(stderrs[i], want) {
						t.Errorf("refusal lacks %q: %s", want, stderrs[i])
					}
				}
			default:
				t.Errorf("launch %d: exit %d: %s", i, c, stderrs[i])
			}
		}
		if ran != 3 || refused != n-3 {
			t.Fatalf("%d ran and %d were refused; want 3 and %d", ran, refused, n-3)
		}
		if es := r.ps(t); len(es) != 0 {
			t.Fatalf("entries left after every launch ended: %+v", es)
		}
		t.Log(fmt.Sprintf("3 admitted, %d refused; e.g. %s", refused, strings.TrimSpace(firstRefusal(stderrs))))
	})
}

func firstRefusal(stderrs []string) string {
	for _, s := range stderrs {
		if s != "" {
			return s
		}
	}
	return ""
}
