//go:build linux && cgo

package compile

import (
	"encoding/binary"
	"fmt"
)

// asm assembles a short forward-only BPF program with named jump targets.
// A target "" is the next instruction, "+1" the one after it.
type asm struct {
	ins    []asmInsn
	labels map[string]int
}

type asmInsn struct {
	code   uint16
	jt, jf string // conditional targets
	to     string // BPF_JA target
	k      uint32
}

func (a *asm) stmt(code uint16, k uint32) { a.ins = append(a.ins, asmInsn{code: code, k: k}) }

func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.ins = append(a.ins, asmInsn{code: code, k: k, jt: jt, jf: jf})
}

func (a *asm) always(to string) { a.ins = append(a.ins, asmInsn{code: bpfJa, to: to}) }

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

// offset is how far target lies past the instruction after i.
func (a *asm) offset(i int, target string) (int, error) {
	switch target {
	case "":
		return 0, nil
	case "+1":
		return 1, nil
	}
	at, ok := a.labels[target]
	if !ok || at <= i {
		return 0, fmt.Errorf("seccomp prologue: instruction %d jumps to %q, not a later label (bug)", i, target)
	}
	return at - i - 1, nil
}

// assemble returns the program as struct sock_filter in the host's byte
// order.
func (a *asm) assemble() ([]byte, error) {
	var out []byte
	for i, in := range a.ins {
		var jt, jf int
		var err error
		k := in.k
		if in.code == bpfJa {
			var off int
			if off, err = a.offset(i, in.to); err == nil {
				k = uint32(off)
			}
		} else {
			if jt, err = a.offset(i, in.jt); err == nil {
				jf, err = a.offset(i, in.jf)
			}
		}
		if err != nil {
			return nil, err
		}
		if jt > 255 || jf > 255 {
			return nil, fmt.Errorf("seccomp prologue: instruction %d jumps %d/%d ahead, past BPF's 255 (bug)", i, jt, jf)
		}
		out = binary.NativeEndian.AppendUint16(out, in.code)
		out = append(out, uint8(jt), uint8(jf))
		out = binary.NativeEndian.AppendUint32(out, k)
	}
	return out, nil
}
