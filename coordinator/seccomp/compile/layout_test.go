//go:build linux && cgo

package compile

import (
	"fmt"
	"runtime"
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
	"github.com/acbox/acbox/coordinator/seccomp/internal/bpfvm"
)

// The audit architectures the kernel puts in seccomp_data.arch, and one the
// policy does not accept (AUDIT_ARCH_AARCH64).
var layoutArches = []struct {
	name  string
	audit uint32
}{{seccomp.ArchAMD64, auditArchAMD64}, {seccomp.ArchX86, auditArchI386}, {"aarch64", 0xc00000b7}}

// maxNr is past every syscall number either architecture has (x86_64 ends
// near 470), so numbers no syscall has are compared too.
const maxNr = 1100

// The binary-tree layout decides every call as the linear one does: every
// number 0..maxNr (and x32's, and a few past 32 bits) on both architectures
// and one the policy refuses, with argument vectors that meet and just miss
// every condition of every rule.
func TestTreeLayoutDecidesAsLinear(t *testing.T) {
	rules := seccomp.Policy()
	linear := compileLayoutForTest(t, rules, layoutLinear)
	tree := compileLayoutForTest(t, rules, layoutTree)
	generic := [][6]uint64{{}, {^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, {3, 1, 2, 0x22, 4, 5}}
	byRule := ruleVectors(rules)
	var runs, linSteps, treeSteps int
	for _, a := range layoutArches {
		for _, nr := range numbers() {
			vs := generic
			if a.name != "aarch64" {
				vs = append(vs, byRule[fmtKey(a.name, nr)]...)
			}
			for _, args := range vs {
				d := bpfvm.Data{Nr: int32(nr), Arch: a.audit, Args: args}
				want, ls := runForTest(t, linear, d)
				got, ts := runForTest(t, tree, d)
				runs, linSteps, treeSteps = runs+1, linSteps+ls, treeSteps+ts
				if got != want {
					t.Fatalf("%s nr %d args %#x: tree layout returns %#x, linear %#x", a.name, nr, args, got, want)
				}
			}
		}
	}
	t.Logf("%d calls decided alike; mean instructions run: linear %.1f, tree %.1f",
		runs, float64(linSteps)/float64(runs), float64(treeSteps)/float64(runs))
}

// numbers are 0..maxNr, x32's (which the filter kills) and a few that do
// not fit a syscall number.
func numbers() []uint32 {
	var ns []uint32
	for nr := uint32(0); nr <= maxNr; nr++ {
		ns = append(ns, nr)
	}
	return append(ns, x32Bit, x32Bit|1, x32Bit|257, 0x7fffffff, 0xffffffff, 0xfffffffe)
}

// ruleVectors returns, per "arch nr", argument vectors for the syscall's
// rules: one meeting every condition of a rule, and for each condition,
// vectors that meet it at its edges or miss it by a bit.
func ruleVectors(rules []seccomp.Rule) map[string][][6]uint64 {
	out := map[string][][6]uint64{}
	for _, r := range rules {
		var base [6]uint64
		for _, c := range r.Conds {
			base[c.Arg] = meet(c)
		}
		vs := [][6]uint64{base}
		for _, c := range r.Conds {
			for _, v := range edges(c) {
				args := base
				args[c.Arg] = v
				vs = append(vs, args)
			}
		}
		for _, arch := range r.Arch {
			for _, nr := range ruleNumbers(r.Syscall, arch) {
				key := fmtKey(arch, nr)
				out[key] = append(out[key], vs...)
			}
		}
	}
	return out
}

func meet(c seccomp.Cond) uint64 {
	if c.Op == seccomp.OpGt {
		return c.Value + 1
	}
	return c.Value
}

// edges are values around c's: equal, one off, a mask bit flipped, high
// bits set or cleared (the filter compares both halves of a 64-bit
// argument on x86_64, only the low one on x86).
func edges(c seccomp.Cond) []uint64 {
	v := c.Value
	es := []uint64{v, v - 1, v + 1, v ^ 1<<32, v | 0xffffffff_00000000, v &^ 0xffffffff_00000000, 0, ^uint64(0)}
	if c.Op == seccomp.OpMaskedEq {
		low := c.Mask & -c.Mask
		es = append(es, v^low, v^c.Mask, v|^c.Mask, c.Mask)
		for bit := uint64(1); bit != 0 && bit <= c.Mask; bit <<= 1 {
			if c.Mask&bit != 0 {
				es = append(es, v^bit)
			}
		}
	}
	return es
}

// ruleNumbers are the syscall's numbers on arch: libseccomp's, or the
// policy's for a syscall libseccomp does not know (compiled by number).
func ruleNumbers(name, arch string) []uint32 {
	if nr, ok := seccomp.Numbers()[name]; ok {
		if _, err := libseccomp.GetSyscallFromName(name); err != nil {
			return []uint32{uint32(nr)}
		}
	}
	nr, err := libseccomp.GetSyscallFromNameByArch(name, libseccompArch[arch])
	if err != nil || nr < 0 {
		return nil // socketcall's multiplexed calls on x86 have rules of their own
	}
	return []uint32{uint32(nr)}
}

func compileLayoutForTest(t *testing.T, rules []seccomp.Rule, l layout) []byte {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the filter is generated on x86_64 hosts only")
	}
	bpf, err := compile(rules, l)
	if err != nil {
		t.Fatal(err)
	}
	return bpf
}

func runForTest(t *testing.T, bpf []byte, d bpfvm.Data) (uint32, int) {
	t.Helper()
	ret, steps, err := bpfvm.Run(bpf, d)
	if err != nil {
		t.Fatalf("%+v: %v", d, err)
	}
	return ret, steps
}

func fmtKey(arch string, nr uint32) string { return fmt.Sprint(arch, " ", nr) }
