package nsjail

import "testing"

func TestCounterShare(t *testing.T) {
	const gib = int64(1) << 30
	for _, tc := range []struct {
		name                  string
		host, memory, hostMem int64
		want                  int64
	}{
		{"default 2 GiB of 24 GiB", 128, 2 * gib, 24 * gib, 10},
		{"watches", 192536, 2 * gib, 24 * gib, 16044},
		{"the whole host's memory: three quarters", 128, 24 * gib, 24 * gib, 96},
		{"more than the host's memory: three quarters", 128, 64 * gib, 24 * gib, 96},
		{"host memory unknown: three quarters", 128, 2 * gib, 0, 96},
		{"a tiny limit still leaves one", 4, 2 * gib, 24 * gib, 1},
		{"INT_MAX does not overflow", 1<<31 - 1, 1 << 40, 1 << 41, 1<<30 - 1},
		{"a zero host limit stays zero", 0, 2 * gib, 24 * gib, 0},
	} {
		if got := counterShare(tc.host, tc.memory, tc.hostMem); got != tc.want {
			t.Errorf("%s: counterShare(%d, %d, %d) = %d; want %d", tc.name, tc.host, tc.memory, tc.hostMem, got, tc.want)
		}
	}
}

// TestSharesStayUnderTheHostLimit: the sandboxes admission lets run at once
// (floor(0.75 x host memory / memory)) hold at most three quarters of each
// counter together, whatever the memory cap.
func TestSharesStayUnderTheHostLimit(t *testing.T) {
	const hostMem = int64(23) << 30
	for _, host := range []int64{8, 128, 8192, 192536} {
		for mem := int64(64 << 20); mem <= hostMem; mem *= 2 {
			n := hostMem / 4 * 3 / mem
			if total := n * counterShare(host, mem, hostMem); total > host*3/4 && counterShare(host, mem, hostMem) > 1 {
				t.Errorf("host %d, memory %d: %d sandboxes hold %d", host, mem, n, total)
			}
		}
	}
}

func TestUserCounterCaps(t *testing.T) {
	host := map[string]int64{"max_inotify_instances": 128, "max_user_namespaces": 1000, "max_mnt_namespaces": 1000}
	got := userCounterCaps(host, 2<<30, 24<<30)
	want := []userCounter{{"max_inotify_instances", 128, 10}, {"max_user_namespaces", 1000, 0}, {"max_mnt_namespaces", 1000, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cap %d: %v; want %v", i, got[i], want[i])
		}
	}
}
