package seccomp

import (
	"encoding/binary"
	"fmt"
)

// A classic-BPF interpreter for seccomp programs, for the policy tests.
//
// golang.org/x/net/bpf has a VM, but it is a packet VM: it loads words in
// network (big-endian) order, while seccomp loads struct seccomp_data in the
// host's order, so every argument would have to be byte-swapped word by word
// to run there. The handful of opcodes libseccomp emits fit in less code than
// that adapter, and an opcode outside the handful fails the test rather than
// being interpreted by guesswork.

// seccompData is struct seccomp_data.
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

// The audit architectures the kernel puts in seccomp_data.arch.
const (
	auditArchX86_64 = 0xc000003e
	auditArchI386   = 0x40000003
	x32SyscallBit   = 0x40000000
)

// The seccomp return values the tests look at.
const (
	retKillProcess = 0x80000000
	retErrno       = 0x00050000
	retAllow       = 0x7fff0000
	retActionFull  = 0xffff0000
	retData        = 0x0000ffff
)

func (d seccompData) bytes() []byte {
	b := make([]byte, 64)
	binary.NativeEndian.PutUint32(b[0:], uint32(d.nr))
	binary.NativeEndian.PutUint32(b[4:], d.arch)
	binary.NativeEndian.PutUint64(b[8:], d.ip)
	for i, a := range d.args {
		binary.NativeEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// Opcodes (linux/bpf_common.h) that libseccomp emits.
const (
	opLdWAbs = 0x20 // BPF_LD|BPF_W|BPF_ABS: A = data[k:k+4]
	opLdMem  = 0x60 // BPF_LD|BPF_MEM: A = M[k]
	opSt     = 0x02 // BPF_ST: M[k] = A
	opAndK   = 0x54 // BPF_ALU|BPF_AND|BPF_K
	opJa     = 0x05 // BPF_JMP|BPF_JA
	opJeqK   = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	opJgtK   = 0x25 // BPF_JMP|BPF_JGT|BPF_K
	opJgeK   = 0x35 // BPF_JMP|BPF_JGE|BPF_K
	opJsetK  = 0x45 // BPF_JMP|BPF_JSET|BPF_K
	opRetK   = 0x06 // BPF_RET|BPF_K
	opRetA   = 0x16 // BPF_RET|BPF_A
)

// run executes prog on d and returns the seccomp return value.
func run(prog []insn, d seccompData) (uint32, error) {
	data := d.bytes()
	var a uint32
	var mem [16]uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case opLdWAbs:
			if in.k%4 != 0 || int(in.k)+4 > len(data) {
				return 0, fmt.Errorf("pc %d: load at %d outside seccomp_data", pc, in.k)
			}
			a = binary.NativeEndian.Uint32(data[in.k:])
		case opLdMem, opSt:
			if in.k >= uint32(len(mem)) {
				return 0, fmt.Errorf("pc %d: scratch slot %d", pc, in.k)
			}
			if in.code == opSt {
				mem[in.k] = a
			} else {
				a = mem[in.k]
			}
		case opAndK:
			a &= in.k
		case opJa:
			pc += int(in.k)
		case opJeqK, opJgtK, opJgeK, opJsetK:
			if jump(in.code, a, in.k) {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case opRetK:
			return in.k, nil
		case opRetA:
			return a, nil
		default:
			return 0, fmt.Errorf("pc %d: opcode %#x not in the interpreter", pc, in.code)
		}
	}
	return 0, fmt.Errorf("program ran off its end")
}

func jump(code uint16, a, k uint32) bool {
	switch code {
	case opJeqK:
		return a == k
	case opJgtK:
		return a > k
	case opJgeK:
		return a >= k
	}
	return a&k != 0
}
