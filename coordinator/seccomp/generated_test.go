package seccomp

import (
	"os"
	"strings"
	"testing"
)

// The generator records the rules it compiled. Comparing them with Policy
// catches a policy edit without a regenerated filter on any build, cgo or
// not; the compile package's golden test checks the bytes themselves.
func TestFilterIsGeneratedFromPolicy(t *testing.T) {
	b, err := os.ReadFile("filter_amd64.rules")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := Policy()
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i].String()
		}
		if g != w {
			t.Fatalf("rule %d: the embedded filter was compiled from %q, the policy now says %q; "+
				"regenerate it from the module root with\n\tgo generate ./coordinator/seccomp/", i, g, w)
		}
	}
}
