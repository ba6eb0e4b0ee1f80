package nsjail

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestMemberStack: an unlimited stack limit becomes the kernel's 8 MiB
// default, and none exceeds a quarter of --memory: glibc sizes thread
// stacks from the soft limit and they count against the data limit
// (--memory), so a stack limit of --memory made every new thread fail.
func TestMemberStack(t *testing.T) {
	for _, c := range []struct {
		soft   uint64
		memory int64
		want   uint64
	}{
		{unix.RLIM_INFINITY, 2 << 30, 8 << 20},
		{unix.RLIM_INFINITY, 128 << 20, 8 << 20},
		{8 << 20, 2 << 30, 8 << 20},
		{64 << 20, 128 << 20, 32 << 20},
		{1 << 30, 2 << 30, 512 << 20},
		{unix.RLIM_INFINITY, 0, 8 << 20},
	} {
		if got := memberStack(c.soft, c.memory); got != c.want {
			t.Errorf("memberStack(%d, %d) = %d, want %d", c.soft, c.memory, got, c.want)
		}
	}
}
