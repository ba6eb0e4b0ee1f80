package seccomp

import "github.com/acbox/acbox/coordinator/seccomp/internal/bpfvm"

// The policy tests run programs in internal/bpfvm, a classic-BPF
// interpreter for seccomp (package compile's layout test uses it too).
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

// run executes prog on d and returns the seccomp return value.
func run(prog []insn, d seccompData) (uint32, error) {
	var b []byte
	for _, in := range prog {
		b = appendInsn(b, in)
	}
	ret, _, err := bpfvm.Run(b, bpfvm.Data{Nr: d.nr, Arch: d.arch, IP: d.ip, Args: d.args})
	return ret, err
}
