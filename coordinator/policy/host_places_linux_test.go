package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadPlacesNeverWaitsOnAFIFO: a FIFO at the places file whose writer
// stays open (another of the user's processes) does not hold up a launch:
// it is refused at once, naming the file. O_NONBLOCK alone opened it, and
// the read then waited for the writer (reviewer review2, 2026-12-02).
func TestReadPlacesNeverWaitsOnAFIFO(t *testing.T) {
	file := filepath.Join(t.TempDir(), "places")
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(file, os.O_RDWR, 0) // a writer that stays open
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	done := make(chan error, 1)
	go func() { _, err := readPlaces(file); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("readPlaces of a FIFO = %v, want a refusal naming it", err)
		}
	case <-time.After(5 * time.Second):
		w.Close() // lets the read end
		t.Fatal("readPlaces waited on a FIFO with an open writer")
	}
}
