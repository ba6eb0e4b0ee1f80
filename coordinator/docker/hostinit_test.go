package docker

import (
	"strings"
	"testing"
)

// TestLastNSpid reads the pid of a process in its own namespace from its
// status, from the host's namespace down to its own.
func TestLastNSpid(t *testing.T) {
	for _, tc := range []struct {
		status string
		n      int
		ok     bool
	}{
		{"Name:\tx\nNSpid:\t4242\t1\nNSpgid:\t4242\t1\n", 1, true},
		{"NSpid:\t4242\t77\t1\n", 1, true},
		{"NSpid:\t4242\n", 4242, true},
		{"NSpid:\t4242\t2", 2, true}, // no final newline
		{"Name:\tx\nNSpgid:\t1\n", 0, false},
		{"NSpid:\n", 0, false},
		{"NSpid:\t1\tx\n", 0, false},
		{"NSpid:\t0\n", 0, false},
		{"NSpid:\t-1\n", 0, false},
		{"", 0, false},
	} {
		n, ok := lastNSpid([]byte(tc.status))
		if n != tc.n && tc.ok || ok != tc.ok {
			t.Errorf("lastNSpid(%q) = %d, %v; want %d, %v", tc.status, n, ok, tc.n, tc.ok)
		}
	}
}

func FuzzLastNSpid(f *testing.F) {
	f.Add([]byte("Name:\tx\nNSpid:\t4242\t1\n"))
	f.Add([]byte("NSpid:"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, ok := lastNSpid(b)
		if ok && (n <= 0 || !strings.Contains(string(b), "NSpid:")) {
			t.Fatalf("lastNSpid(%q) = %d, true", b, n)
		}
	})
}
