package exitscan

import (
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// hostile are names a member gives files in a write grant to act on the
// terminal that reads acbox's findings (policy's shown_test.go has the
// whole list): erase and forge acbox's last line, forge a line, reorder
// text, a C1 CSI as a raw byte.
var hostile = []string{
	"/w/x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m/f",
	"/w/x\nacbox: exit scan: nothing to report",
	"/w/\u202egnp.exe",
	"/w/\x9b31m",
}

// TestFindingsQuoteNames: each line the exit scan prints (set-id files,
// file capabilities, device nodes, "not checked after the run") names
// the member's path with policy.Quote; no raw control, format or invalid
// byte comes out, and no newline of the name starts a line.
func TestFindingsQuoteNames(t *testing.T) {
	for _, n := range hostile {
		w := &walker{after: true, snap: newSnapshot()}
		w.uncheck(n, "the exit scan could not open or read it (permission denied)")
		s := &ExitScan{NewSetuid: []string{n, n + "2"}, SetidCleared: []string{n}, FilecapsCleared: []string{n},
			NewDevices: []string{n}, Unchecked: w.snap.unchecked}
		var b strings.Builder
		printFindings(&b, s)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 5 {
			t.Errorf("%q: %d lines, want 5: %q", n, len(lines), b.String())
		}
		for _, l := range lines {
			if !policy.Printable(l) || !strings.HasPrefix(l, "acbox: ") || !strings.Contains(l, `"/w/`) {
				t.Errorf("%q: line %q holds raw bytes or an unquoted name", n, l)
			}
		}
	}
}
