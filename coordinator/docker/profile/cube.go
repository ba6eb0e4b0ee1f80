package profile

import (
	"math/bits"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// A cube is a set of syscall argument vectors: for each of the six
// arguments, the bits under mask must equal value. A list of cubes is their
// union. Every seccomp comparison acbox and docker use (==, >, <, &==) is
// a union of cubes, and a cube is one libseccomp rule with at most one
// masked comparison per argument, which runc needs (runc#2735: repeated
// comparisons of one argument become separate, ORed rules).
type cube [6]struct{ mask, value uint64 }

// and is the intersection of a and b, and whether it is empty.
func (a cube) and(b cube) (cube, bool) {
	var c cube
	for i := range a {
		if (a[i].value^b[i].value)&a[i].mask&b[i].mask != 0 {
			return c, false
		}
		c[i].mask = a[i].mask | b[i].mask
		c[i].value = (a[i].value | b[i].value) & c[i].mask
	}
	return c, true
}

// sharp is a minus b as disjoint cubes: for each bit b fixes and a leaves
// free, the part of a that agrees with b on the bits before it and differs
// there.
func (a cube) sharp(b cube) []cube {
	if _, ok := a.and(b); !ok {
		return []cube{a}
	}
	var out []cube
	cur := a
	for i := range b {
		free := b[i].mask &^ cur[i].mask
		for free != 0 {
			bit := uint64(1) << (63 - bits.LeadingZeros64(free))
			free &^= bit
			diff := cur
			diff[i].mask |= bit
			diff[i].value |= ^b[i].value & bit
			out = append(out, diff)
			cur[i].mask |= bit
			cur[i].value |= b[i].value & bit
		}
	}
	return out
}

func sharpAll(cs []cube, b cube) []cube {
	var out []cube
	for _, c := range cs {
		out = append(out, c.sharp(b)...)
	}
	return out
}

// fromConds is a native rule's condition (all must hold) as cubes.
func fromConds(conds []seccomp.Cond) []cube {
	out := []cube{{}}
	for _, c := range conds {
		var next []cube
		for _, have := range out {
			for _, p := range condCubes(c.Arg, c.Op, c.Value, c.Mask) {
				if x, ok := have.and(p); ok {
					next = append(next, x)
				}
			}
		}
		out = next
	}
	return out
}

func condCubes(arg uint, op seccomp.Op, value, mask uint64) []cube {
	switch op {
	case seccomp.OpEq:
		return []cube{pattern(arg, ^uint64(0), value)}
	case seccomp.OpGt:
		if value == ^uint64(0) {
			return nil
		}
		return span(arg, value+1, ^uint64(0))
	case seccomp.OpMaskedEq:
		return []cube{pattern(arg, mask, value)}
	}
	panic("bug: native seccomp condition with an unknown operator")
}

// fromArgs is a docker rule's conditions (all must hold) as cubes. An
// operator the default profile does not use is a bug here, caught by the
// package's tests.
func fromArgs(args []specs.LinuxSeccompArg) []cube {
	out := []cube{{}}
	for _, a := range args {
		var p []cube
		switch a.Op {
		case specs.OpEqualTo:
			p = []cube{pattern(a.Index, ^uint64(0), a.Value)}
		case specs.OpMaskedEqual:
			p = []cube{pattern(a.Index, a.Value, a.ValueTwo)}
		case specs.OpLessThan:
			if a.Value > 0 {
				p = span(a.Index, 0, a.Value-1)
			}
		default:
			panic("bug: docker's default profile uses seccomp operator " + string(a.Op) + ", which acbox does not translate")
		}
		var next []cube
		for _, have := range out {
			for _, c := range p {
				if x, ok := have.and(c); ok {
					next = append(next, x)
				}
			}
		}
		out = next
	}
	return out
}

func pattern(arg uint, mask, value uint64) cube {
	var c cube
	c[arg].mask, c[arg].value = mask, value&mask
	return c
}

// span covers [lo, hi] with aligned power-of-two blocks.
func span(arg uint, lo, hi uint64) []cube {
	var out []cube
	for {
		size := uint64(1)
		for lo&(size<<1-1) == 0 && size<<1 != 0 && lo+(size<<1-1) <= hi && lo+(size<<1-1) >= lo {
			size <<= 1
		}
		out = append(out, pattern(arg, ^(size-1), lo))
		if lo+(size-1) >= hi {
			return out
		}
		lo += size
	}
}

// args is c as a rule's comparisons: one masked comparison per fixed
// argument (an equality when every bit is fixed).
func (c cube) args() []specs.LinuxSeccompArg {
	var out []specs.LinuxSeccompArg
	for i, p := range c {
		switch p.mask {
		case 0:
		case ^uint64(0):
			out = append(out, specs.LinuxSeccompArg{Index: uint(i), Value: p.value, Op: specs.OpEqualTo})
		default:
			out = append(out, specs.LinuxSeccompArg{Index: uint(i), Value: p.mask, ValueTwo: p.value, Op: specs.OpMaskedEqual})
		}
	}
	return out
}
