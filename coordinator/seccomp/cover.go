package seccomp

// libseccomp allows one comparison per argument in a rule and has no "not
// in", while the filter allows by default. "Refuse unless the argument is one
// of these values" therefore becomes a union of single-comparison rules that
// together match every other value. The helpers here build those unions.

// outside returns conditions on arg that together match every 64-bit value
// except the allowed ones, which must be sorted and distinct: each gap
// between allowed values as aligned power-of-two blocks (one masked
// equality each), and "> the largest" for everything above.
func outside(arg uint, allowed ...uint64) []Cond {
	var cs []Cond
	lo := uint64(0)
	for _, a := range allowed {
		if a > lo {
			cs = append(cs, blocks(arg, lo, a-1)...)
		}
		lo = a + 1
	}
	return append(cs, Cond{Arg: arg, Op: OpGt, Value: allowed[len(allowed)-1]})
}

// blocks covers [lo, hi] with aligned power-of-two blocks, largest first.
func blocks(arg uint, lo, hi uint64) []Cond {
	var cs []Cond
	for lo <= hi {
		size := uint64(1)
		for lo&(size<<1-1) == 0 && lo+size<<1-1 <= hi {
			size <<= 1
		}
		cs = append(cs, Cond{Arg: arg, Op: OpMaskedEq, Mask: ^(size - 1), Value: lo})
		lo += size
	}
	return cs
}

// personalityConds match every persona except PER_LINUX (0), PER_LINUX32
// and the query 0xffffffff. The kernel reads the persona as an unsigned int.
// A 32-bit value other than 0 and 0xffffffff has a set bit i whose next bit
// (i+1 mod 32) is clear, so the 32 conditions "bit i set, bit i+1 clear"
// match exactly those values; no shorter union exists, since each condition
// needs a set and a clear bit and they must chain through all 32 bits.
// PER_LINUX32 (bit 3 alone) is matched only by i=3, so that condition also
// asks for bit 2. Values with anything in the high 32 bits are refused too
// (glibc passes the persona zero-extended).
func personalityConds() []Cond {
	cs := make([]Cond, 0, 33)
	for i := range 32 {
		set, clear := uint64(1)<<i, uint64(1)<<((i+1)%32)
		c := Cond{Arg: 0, Op: OpMaskedEq, Mask: set | clear, Value: set}
		if set == perLinux32 {
			c.Mask |= perLinux32 >> 1
			c.Value |= perLinux32 >> 1
		}
		cs = append(cs, c)
	}
	return append(cs, Cond{Arg: 0, Op: OpGt, Value: low32})
}
