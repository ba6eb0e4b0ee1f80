// Package bpfvm runs a seccomp classic-BPF program on one struct
// seccomp_data, for tests that compare two layouts of the same policy
// instruction by instruction: package compile's layout test, which cannot
// reach package seccomp's test-only interpreter.
//
// It knows the opcodes libseccomp and the compile prologue emit; any other
// is an error rather than a guess.
package bpfvm

import (
	"encoding/binary"
	"fmt"
)

// Data is struct seccomp_data.
type Data struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

func (d Data) bytes() []byte {
	b := make([]byte, 64)
	binary.NativeEndian.PutUint32(b[0:], uint32(d.Nr))
	binary.NativeEndian.PutUint32(b[4:], d.Arch)
	binary.NativeEndian.PutUint64(b[8:], d.IP)
	for i, a := range d.Args {
		binary.NativeEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// Opcodes (linux/bpf_common.h).
const (
	opLdWAbs = 0x20 // BPF_LD|BPF_W|BPF_ABS
	opLdMem  = 0x60 // BPF_LD|BPF_MEM
	opSt     = 0x02 // BPF_ST
	opAndK   = 0x54 // BPF_ALU|BPF_AND|BPF_K
	opJa     = 0x05 // BPF_JMP|BPF_JA
	opJeqK   = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	opJgtK   = 0x25 // BPF_JMP|BPF_JGT|BPF_K
	opJgeK   = 0x35 // BPF_JMP|BPF_JGE|BPF_K
	opJsetK  = 0x45 // BPF_JMP|BPF_JSET|BPF_K
	opRetK   = 0x06 // BPF_RET|BPF_K
	opRetA   = 0x16 // BPF_RET|BPF_A
)

const insnSize = 8

// Run executes bpf (struct sock_filter in the host's byte order) on d and
// returns the seccomp return value and how many instructions ran.
func Run(bpf []byte, d Data) (ret uint32, steps int, err error) {
	if len(bpf)%insnSize != 0 {
		return 0, 0, fmt.Errorf("program of %d bytes is not whole instructions", len(bpf))
	}
	data := d.bytes()
	var a uint32
	var mem [16]uint32
	n := len(bpf) / insnSize
	for pc := 0; pc < n; pc++ {
		steps++
		b := bpf[pc*insnSize:]
		code, jt, jf, k := binary.NativeEndian.Uint16(b), int(b[2]), int(b[3]), binary.NativeEndian.Uint32(b[4:])
		switch code {
		case opLdWAbs:
			if k%4 != 0 || int(k)+4 > len(data) {
				return 0, steps, fmt.Errorf("pc %d: load at %d outside seccomp_data", pc, k)
			}
			a = binary.NativeEndian.Uint32(data[k:])
		case opLdMem, opSt:
			if k >= uint32(len(mem)) {
				return 0, steps, fmt.Errorf("pc %d: scratch slot %d", pc, k)
			}
			if code == opSt {
				mem[k] = a
			} else {
				a = mem[k]
			}
		case opAndK:
			a &= k
		case opJa:
			pc += int(k)
		case opJeqK, opJgtK, opJgeK, opJsetK:
			if jump(code, a, k) {
				pc += jt
			} else {
				pc += jf
			}
		case opRetK:
			return k, steps, nil
		case opRetA:
			return a, steps, nil
		default:
			return 0, steps, fmt.Errorf("pc %d: opcode %#x not in the interpreter", pc, code)
		}
	}
	return 0, steps, fmt.Errorf("program ran off its end")
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
