//go:build linux && cgo

package compile

import (
	"encoding/binary"
	"fmt"
	"slices"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
)

// Syscalls newer than libseccomp's table (2.5.4 stops at Linux 5.17 plus a
// few backports) cannot be named to it, and a raw number is not translated
// to the second architecture. Such rules ([seccomp.Numbers]) are compiled
// here instead, as a prologue in front of libseccomp's program:
//
//	ld  [arch]
//	jeq AUDIT_ARCH_X86_64, +1     ; x86_64 or x86: check the numbers
//	jeq AUDIT_ARCH_I386, 0, skip  ; anything else: libseccomp's program kills it
//	ld  [nr]
//	jeq NR, 0, +1 ; ret ERRNO(e)  ; one pair per rule
//	                              ; libseccomp's program, which loads arch itself
//
// The numbers are the same on both architectures (the shared numbering from
// 424 on), and an x32 call carries bit 30 in nr, so it matches no number and
// meets libseccomp's kill. Only unconditional rules on both architectures
// are compiled this way.

// The seccomp_data offsets and BPF opcodes of the prologue.
const (
	offNr          = 0
	offArch        = 4
	bpfLdAbsW      = 0x20 // BPF_LD|BPF_W|BPF_ABS
	bpfJeqK        = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	bpfRetK        = 0x06 // BPF_RET|BPF_K
	retErrno       = 0x00050000
	auditArchAMD64 = 0xc000003e
	auditArchI386  = 0x40000003
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

// prologue returns the instructions that refuse rules by number, in the
// host's byte order, or nothing when there are none.
func prologue(rs []numbered) []byte {
	if len(rs) == 0 {
		return nil
	}
	var out []byte
	put := func(code uint16, jt, jf uint8, k uint32) {
		out = binary.NativeEndian.AppendUint16(out, code)
		out = append(out, jt, jf)
		out = binary.NativeEndian.AppendUint32(out, k)
	}
	put(bpfLdAbsW, 0, 0, offArch)
	put(bpfJeqK, 1, 0, auditArchAMD64)
	put(bpfJeqK, 0, uint8(1+2*len(rs)), auditArchI386)
	put(bpfLdAbsW, 0, 0, offNr)
	for _, r := range rs {
		put(bpfJeqK, 0, 1, uint32(r.nr))
		put(bpfRetK, 0, 0, retErrno|uint32(r.errno))
	}
	return out
}
