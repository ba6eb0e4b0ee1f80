package seccomp

import (
	"fmt"
	"slices"
	"strings"
)

// The architectures the filter covers, as libseccomp names them. x86 is there
// so that `int 0x80` and 32-bit binaries meet the same rules as 64-bit code;
// every other architecture, x32 included, kills the process.
const (
	ArchAMD64 = "x86_64"
	ArchX86   = "x86"
)

var bothArches = []string{ArchAMD64, ArchX86}

// Arches returns the architectures the filter accepts, the native one
// first. A call from any other architecture kills the process.
func Arches() []string {
	return slices.Clone(bothArches)
}

// Op is how a Cond compares a syscall argument. All comparisons are unsigned
// and see the full 64-bit register; on x86 only the low 32 bits exist.
type Op uint8

const (
	// OpEq: arg == Value.
	OpEq Op = iota + 1
	// OpGt: arg > Value.
	OpGt
	// OpMaskedEq: arg & Mask == Value.
	OpMaskedEq
)

// Cond is one comparison on one syscall argument.
type Cond struct {
	Arg   uint   // argument index, 0 to 5
	Op    Op     // comparison
	Value uint64 // compared with the argument (after Mask for OpMaskedEq)
	Mask  uint64 // OpMaskedEq only
}

func (c Cond) String() string {
	switch c.Op {
	case OpEq:
		return fmt.Sprintf("arg%d == %#x", c.Arg, c.Value)
	case OpGt:
		return fmt.Sprintf("arg%d > %#x", c.Arg, c.Value)
	case OpMaskedEq:
		return fmt.Sprintf("arg%d & %#x == %#x", c.Arg, c.Mask, c.Value)
	}
	return fmt.Sprintf("arg%d op%d %#x", c.Arg, c.Op, c.Value)
}

// Rule refuses one syscall, on the listed architectures, when all its Conds
// hold (always, when there are none). The filter allows every call that no
// rule refuses, so the list is the whole policy.
type Rule struct {
	Syscall string   // libseccomp's name, e.g. "clone"
	Arch    []string // architectures the rule is compiled for: each has the syscall; all that do, unless the syscall's rules differ by arch (compile's splitArches)
	Conds   []Cond   // all must hold
	Errno   Errno    // what the caller gets instead of the call
	Why     string   // one line, for documentation and reports
}

func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Syscall)
	if len(r.Conds) > 0 {
		conds := make([]string, len(r.Conds))
		for i, c := range r.Conds {
			conds[i] = c.String()
		}
		fmt.Fprintf(&b, " if %s", strings.Join(conds, " && "))
	}
	fmt.Fprintf(&b, " -> %s [%s]", r.Errno, strings.Join(r.Arch, ","))
	return b.String()
}

// Policy returns the rules of the shipped filter, Options{BlockMPTCP: true},
// in the order they are compiled: the embedded filter is
// compile.Compile(Policy()). The slice is fresh; changing it changes nothing.
func Policy() []Rule {
	return policy(shipped)
}

func policy(o Options) []Rule {
	var rs []Rule
	rs = append(rs, namespaceRules()...)
	rs = append(rs, mountRules()...)
	rs = append(rs, kernelSurfaceRules()...)
	rs = append(rs, hostRules()...)
	rs = append(rs, cpuEmulationRules()...)
	rs = append(rs, obsoleteRules()...)
	rs = append(rs, numaRules()...)
	rs = append(rs, newSurfaceRules()...)
	rs = append(rs, personalityRules()...)
	rs = append(rs, ioctlRules()...)
	rs = append(rs, socketRules(o)...)
	rs = append(rs, fastOpenRules()...)
	rs = append(rs, setidRules()...)
	rs = append(rs, clockRules()...)
	rs = append(rs, rlimitRules()...)
	rs = append(rs, stackRules()...)
	rs = append(rs, leaseRules()...)
	return rs
}

// refuse is a rule without conditions on both architectures.
func refuse(e Errno, why string, names ...string) []Rule {
	rs := make([]Rule, len(names))
	for i, n := range names {
		rs[i] = Rule{Syscall: n, Arch: bothArches, Errno: e, Why: why}
	}
	return rs
}

// refuseIf is one rule per condition: the refusal applies when any of them holds.
func refuseIf(name string, e Errno, why string, conds ...Cond) []Rule {
	rs := make([]Rule, len(conds))
	for i, c := range conds {
		rs[i] = Rule{Syscall: name, Arch: bothArches, Conds: []Cond{c}, Errno: e, Why: why}
	}
	return rs
}
