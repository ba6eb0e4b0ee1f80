//go:build integration

package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantBeneathUnsearchableDir: as root, a grant beneath a directory of
// root's own without search permission (mode 0600) is mounted and read:
// root's pid 1 opens the grant by path, and traversing that directory takes
// CAP_DAC_READ_SEARCH in its namespace, which root's pid 1 holds (it held
// every capability before its ids were mapped after its exec). As a user
// the same grant is refused: acbox cannot traverse the directory either.
func TestGrantBeneathUnsearchableDir(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		file := fx.file("locked/sub/f.txt", "beneath-locked\n")
		fx.own(filepath.Join(fx.root, "locked"), 0o600)
		r := runBox(t, m, "run", "-r", filepath.Dir(file), "--", "cat", file)
		if m.uid != 0 {
			if r.code == 0 || strings.Contains(r.stdout, "beneath-locked") {
				t.Fatalf("a grant the user cannot reach was mounted: %v", r)
			}
			return
		}
		if r.code != 0 || !strings.Contains(r.stdout, "beneath-locked") {
			t.Fatalf("root's grant beneath its own mode-0600 directory: want the file read, got %v", r)
		}
	})
}
