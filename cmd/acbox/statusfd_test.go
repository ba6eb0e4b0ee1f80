package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestStatusFDReadOnly: a --status-fd open only for reading (3</dev/null)
// is refused before the run (2); the run went ahead and every event was
// lost without a word.
func TestStatusFDReadOnly(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, errs, code := runMain(t, t.TempDir(), "run", "--status-fd", strconv.Itoa(int(f.Fd())), "--", "true")
	if code != 2 || !strings.Contains(errs, "is not open for writing") {
		t.Fatalf("exit %d, want 2 and a refusal naming the descriptor:\n%s", code, errs)
	}
}
