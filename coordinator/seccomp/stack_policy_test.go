//go:build linux && amd64

package seccomp

import (
	"math/rand/v2"
	"testing"
)

// The stack rules in the interpreter. x86's old mmap (number 90) reads its
// six arguments from a struct in memory, so its registers say nothing
// about MAP_GROWSDOWN: the i386 program must refuse it whatever they hold,
// while mmap2, what 32-bit glibc, musl and Go call, keeps its flag rule.
// TestKernel runs the same calls on the real kernel through int 0x80.
func TestX86OldMmapIsRefused(t *testing.T) {
	prog := buildForTest(t).insns()
	r := rand.New(rand.NewPCG(3, 4))
	argSets := [][]uint64{
		{},                        // old_mmap(NULL)
		{0x0804_a000},             // a pointer into a static binary's data
		{0xffff_fffc},             // the top of the 32-bit address space
		{0, 4096, 3, 0x22, 0, 0},  // mmap's registers, flags without MAP_GROWSDOWN
		{0, 4096, 3, 0x122, 0, 0}, // and with it
		{0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff},
	}
	for range 1000 {
		var a []uint64
		for range 6 {
			a = append(a, uint64(r.Uint32()))
		}
		argSets = append(argSets, a)
	}
	for _, args := range argSets {
		if got := eval(t, prog, ArchX86, "mmap", args...); got != "ENOSYS" {
			t.Fatalf("x86 old mmap (90)%#x: %s, want ENOSYS", args, got)
		}
	}
	for _, c := range []struct {
		name string
		args []uint64
		want string
	}{
		{"private", []uint64{0, 4096, 3, 0x22, 0xffff_ffff, 0}, allow},
		{"file", []uint64{0, 4096, 1, 0x02, 3, 0}, allow},
		{"stack flag", []uint64{0, 4096, 3, 0x20022, 0xffff_ffff, 0}, allow},
		{"fixed", []uint64{0x1000_0000, 4096, 3, 0x32, 0xffff_ffff, 0}, allow},
		{"growsdown", []uint64{0, 4096, 3, 0x122, 0xffff_ffff, 0}, "EPERM"},
		{"growsdown alone", []uint64{0, 0, 0, mapGrowsdown}, "EPERM"},
	} {
		if got := eval(t, prog, ArchX86, "mmap2", c.args...); got != c.want {
			t.Errorf("x86 mmap2 %s %#x: %s, want %s", c.name, c.args, got, c.want)
		}
	}
}
