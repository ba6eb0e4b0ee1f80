//go:build linux && cgo

package compile

import (
	"fmt"
	"slices"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// libseccomp's program cannot express two things the policy needs, so
// package compile puts a prologue in front of it:
//
//   - Syscalls newer than libseccomp's table (2.5.4 stops at futex_requeue,
//     456) cannot be named to it, and a raw number is not translated to the
//     second architecture. Rules for them ([seccomp.Numbers]) are compiled
//     here by number, the same on both architectures (the shared numbering
//     from 424 on). Only unconditional rules on both architectures are.
//   - Numbers no classified syscall has ([seccomp.Unclassified]) answer
//     ENOSYS, so a syscall a newer kernel adds does not pass by default.
//
// The prologue:
//
//	      ld  [arch]
//	      jeq AUDIT_ARCH_X86_64, 0, x86
//	      ld  [nr]
//	      jge X32_BIT, end             ; x32: libseccomp's program kills it
//	      jge FIRST, 0, +1 ; jgt LAST, 0, enosys   ; per x86_64 range
//	      ja  rules
//	x86:  jeq AUDIT_ARCH_I386, 0, end  ; anything else: libseccomp kills it
//	      ld  [nr]
//	      jge FIRST, 0, +1 ; jgt LAST, 0, enosys   ; per x86 range
//	rules: jeq NR, 0, +1 ; ret ERRNO(e)           ; per rule by number
//	      ja  end
//	enosys: ret ERRNO(ENOSYS)
//	end:                               ; libseccomp's program, which loads arch itself

// The seccomp_data offsets and BPF opcodes of the prologue.
const (
	offNr          = 0
	offArch        = 4
	bpfLdAbsW      = 0x20 // BPF_LD|BPF_W|BPF_ABS
	bpfJa          = 0x05 // BPF_JMP|BPF_JA
	bpfJeqK        = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	bpfJgtK        = 0x25 // BPF_JMP|BPF_JGT|BPF_K
	bpfJgeK        = 0x35 // BPF_JMP|BPF_JGE|BPF_K
	bpfRetK        = 0x06 // BPF_RET|BPF_K
	retErrno       = 0x00050000
	auditArchAMD64 = 0xc000003e
	auditArchI386  = 0x40000003
	x32Bit         = 0x40000000
)

// byNumber reports whether r must be compiled into the prologue: libseccomp
// cannot resolve its name and the policy gives its number.
func byNumber(r seccomp.Rule) (int, bool, error) {
	if _, err := libseccomp.GetSyscallFromName(r.Syscall); err == nil {
		return 0, false, nil
	}
	nr, ok := seccomp.Numbers()[r.Syscall]
	if !ok {
		return 0, false, nil // libseccomp's own error names it
	}
	if len(r.Conds) > 0 || !slices.Equal(r.Arch, seccomp.Arches()) {
		return 0, false, fmt.Errorf("syscall %s is unknown to libseccomp and compiled by number, "+
			"which supports only unconditional rules on %v (bug)", r.Syscall, seccomp.Arches())
	}
	return nr, true, nil
}

type numbered struct {
	nr    int
	errno seccomp.Errno
}

// prologue returns the instructions described above, in the host's byte
// order.
func prologue(rs []numbered, unclassified []seccomp.Range) ([]byte, error) {
	var a asm
	ranges := func(arch string) {
		for i, r := range unclassified {
			if r.Arch != arch {
				continue
			}
			next := fmt.Sprintf("%s-%d", arch, i)
			a.jump(bpfJgeK, r.First, "", next)
			a.jump(bpfJgtK, r.Last, next, "enosys")
			a.label(next)
		}
	}
	a.stmt(bpfLdAbsW, offArch)
	a.jump(bpfJeqK, auditArchAMD64, "", "x86")
	a.stmt(bpfLdAbsW, offNr)
	a.jump(bpfJgeK, x32Bit, "end", "")
	ranges(seccomp.ArchAMD64)
	a.always("rules")
	a.label("x86")
	a.jump(bpfJeqK, auditArchI386, "", "end")
	a.stmt(bpfLdAbsW, offNr)
	ranges(seccomp.ArchX86)
	a.label("rules")
	for _, r := range rs {
		a.jump(bpfJeqK, uint32(r.nr), "", "+1")
		a.stmt(bpfRetK, retErrno|uint32(r.errno))
	}
	a.always("end")
	a.label("enosys")
	a.stmt(bpfRetK, retErrno|uint32(seccomp.ENOSYS))
	a.label("end")
	return a.assemble()
}
