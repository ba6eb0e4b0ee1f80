package seccomp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// matches evaluates a condition directly, the way libseccomp documents it.
func (c Cond) matches(args [6]uint64) bool {
	v := args[c.Arg]
	switch c.Op {
	case OpEq:
		return v == c.Value
	case OpGt:
		return v > c.Value
	case OpMaskedEq:
		return v&c.Mask == c.Value
	}
	panic("unknown op")
}

func anyMatches(cs []Cond, v uint64) bool {
	for _, c := range cs {
		if c.matches([6]uint64{v}) {
			return true
		}
	}
	return false
}

// samples are boundary values plus random ones, the same on every run.
func samples() []uint64 {
	var vs []uint64
	for v := range uint64(0x1000) {
		vs = append(vs, v, 0xffffffff-v, 0x1_00000000+v, ^v)
	}
	for i := range 64 {
		vs = append(vs, 1<<i, 1<<i-1, 1<<i+1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		vs = append(vs, r.Uint64(), r.Uint64()&0xffffffff, r.Uint64()&0xff)
	}
	return vs
}

func TestOutsideMatchesEverythingElse(t *testing.T) {
	sets := [][]uint64{
		{afUnix, afInet, afInet6, afNetlink},
		{0},
		{0, 1, 2, 3},
		{5, 1 << 20, 1<<32 + 7},
	}
	vs := samples()
	for _, allowed := range sets {
		cs := outside(0, allowed...)
		for _, v := range vs {
			if got, want := anyMatches(cs, v), !slices.Contains(allowed, v); got != want {
				t.Fatalf("outside(%v): value %#x refused=%v, want %v", allowed, v, got, want)
			}
		}
	}
}

func TestOutsideFamiliesIsSmall(t *testing.T) {
	// 0, 3, 4-7, 8-9, 11, 12-15 and "> 16".
	if n := len(outside(0, afUnix, afInet, afInet6, afNetlink)); n != 7 {
		t.Errorf("family rules: %d conditions, want 7", n)
	}
}

func TestPersonalityConds(t *testing.T) {
	cs := personalityConds()
	allowed := []uint64{perLinux, perLinux32, personalityQ}
	for _, v := range samples() {
		if got, want := anyMatches(cs, v), !slices.Contains(allowed, v); got != want {
			t.Fatalf("persona %#x refused=%v, want %v", v, got, want)
		}
	}
}

func TestPolicyIsWellFormed(t *testing.T) {
	for _, r := range Policy() {
		if r.Syscall == "" || r.Errno == 0 || r.Why == "" || len(r.Arch) == 0 {
			t.Errorf("incomplete rule %s", r)
		}
		seen := map[uint]bool{}
		for _, c := range r.Conds {
			if c.Arg > 5 || seen[c.Arg] {
				// libseccomp allows one comparison per argument per rule.
				t.Errorf("rule %s: argument %d compared twice or out of range", r, c.Arg)
			}
			seen[c.Arg] = true
		}
	}
}

func TestBlockMPTCPOnlyAddsMPTCPRules(t *testing.T) {
	with, without := policy(Options{BlockMPTCP: true}), policy(Options{})
	if got := len(with) - len(without); got != len(mptcpRules()) {
		t.Errorf("BlockMPTCP adds %d rules, want %d", got, len(mptcpRules()))
	}
}
