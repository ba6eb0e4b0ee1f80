package seccomp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Options select the policy. The zero value is the policy without the MPTCP
// refusal, which nothing in acbox asks for: launches set BlockMPTCP.
type Options struct {
	// BlockMPTCP refuses socket(AF_INET or AF_INET6, ..., IPPROTO_MPTCP)
	// with EPROTONOSUPPORT so that clients fall back to plain TCP, which
	// Landlock's TCP rules cover.
	BlockMPTCP bool
}

// Program is a compiled filter: classic BPF for seccomp, in the host's byte
// order, ready for LoadThread.
type Program struct {
	Arch   []string // architectures the filter accepts; any other kills the process
	Insns  int      // number of BPF instructions
	Digest string   // sha256 (hex) of the exported BPF, for the enforcement report
	bpf    []byte
}

// insnSize is sizeof(struct sock_filter): u16 code, u8 jt, u8 jf, u32 k.
const insnSize = 8

// maxInsns is BPF_MAXINSNS, the kernel's limit for one filter.
const maxInsns = 4096

// insn is one struct sock_filter.
type insn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

func newProgram(bpf []byte, arch []string) (*Program, error) {
	if len(bpf) == 0 || len(bpf)%insnSize != 0 || len(bpf)/insnSize > maxInsns {
		return nil, fmt.Errorf("seccomp: exported filter has %d bytes, not 1 to %d instructions of %d bytes (bug)",
			len(bpf), maxInsns, insnSize)
	}
	sum := sha256.Sum256(bpf)
	return &Program{Arch: arch, Insns: len(bpf) / insnSize, Digest: hex.EncodeToString(sum[:]), bpf: bpf}, nil
}

// appendInsn encodes one struct sock_filter in the host's byte order.
func appendInsn(b []byte, in insn) []byte {
	b = binary.NativeEndian.AppendUint16(b, in.code)
	b = append(b, in.jt, in.jf)
	return binary.NativeEndian.AppendUint32(b, in.k)
}

// insns decodes the program. libseccomp writes struct sock_filter as the
// kernel reads it, in the host's byte order.
func (p *Program) insns() []insn {
	out := make([]insn, len(p.bpf)/insnSize)
	for i := range out {
		b := p.bpf[i*insnSize:]
		out[i] = insn{
			code: binary.NativeEndian.Uint16(b[0:]),
			jt:   b[2],
			jf:   b[3],
			k:    binary.NativeEndian.Uint32(b[4:]),
		}
	}
	return out
}
