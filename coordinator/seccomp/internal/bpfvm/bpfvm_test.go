package bpfvm

import (
	"encoding/binary"
	"testing"
)

func prog(ins ...[4]uint32) []byte {
	var b []byte
	for _, in := range ins {
		b = binary.NativeEndian.AppendUint16(b, uint16(in[0]))
		b = append(b, uint8(in[1]), uint8(in[2]))
		b = binary.NativeEndian.AppendUint32(b, in[3])
	}
	return b
}

// nr == 39 ? ERRNO(1) : ALLOW, reading the number in the host's order.
func TestRun(t *testing.T) {
	p := prog([4]uint32{opLdWAbs, 0, 0, 0}, [4]uint32{opJeqK, 0, 1, 39},
		[4]uint32{opRetK, 0, 0, 0x50001}, [4]uint32{opRetK, 0, 0, 0x7fff0000})
	for nr, want := range map[int32]uint32{39: 0x50001, 40: 0x7fff0000} {
		ret, steps, err := Run(p, Data{Nr: nr})
		if err != nil || ret != want {
			t.Errorf("nr %d: %#x, %v; want %#x", nr, ret, err, want)
		}
		if steps != 3 {
			t.Errorf("nr %d: %d steps, want 3", nr, steps)
		}
	}
}

func TestRunRefusesWhatItDoesNotKnow(t *testing.T) {
	for name, p := range map[string][]byte{
		"unknown opcode": prog([4]uint32{0x07, 0, 0, 0}), // BPF_MISC|BPF_TAX
		"off the end":    prog([4]uint32{opLdWAbs, 0, 0, 0}),
		"load past data": prog([4]uint32{opLdWAbs, 0, 0, 64}),
		"partial insn":   prog([4]uint32{opRetK, 0, 0, 0})[:5],
	} {
		if _, _, err := Run(p, Data{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
