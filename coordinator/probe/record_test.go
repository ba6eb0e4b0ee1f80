package probe

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestVerificationRecordListsEveryProbe: docs/verification.md has a row
// for every probe of the catalogue, so the record cannot silently lag it
// (regenerate it with tests/verifydoc, as the record says).
func TestVerificationRecordListsEveryProbe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the catalogue is Linux only")
	}
	b, err := os.ReadFile("../../docs/verification.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Catalogue() {
		if !strings.Contains(string(b), "| `"+p.ID+"` |") {
			t.Errorf("docs/verification.md has no row for %s", p.ID)
		}
	}
}
