//go:build amd64

package seccomp

import "testing"

// Numbers no classified syscall has answer ENOSYS; the classified ones
// around them keep their verdicts; x32 calls are still killed.
func TestUnclassifiedNumbersAnswerENOSYS(t *testing.T) {
	prog := buildForTest(t).insns()
	for _, c := range []struct {
		arch uint32
		nr   int32
		want string
	}{
		{auditArchX86_64, 0, allow},      // read
		{auditArchX86_64, 334, allow},    // rseq
		{auditArchX86_64, 335, allow},    // uretprobe
		{auditArchX86_64, 336, allow},    // uprobe
		{auditArchX86_64, 337, "ENOSYS"}, // never used on x86_64
		{auditArchX86_64, 400, "ENOSYS"}, // never used on x86_64
		{auditArchX86_64, 423, "ENOSYS"}, // never used on x86_64
		{auditArchX86_64, 424, allow},    // pidfd_send_signal
		{auditArchX86_64, 457, "ENOSYS"}, // statmount
		{auditArchX86_64, 462, allow},    // mseal
		{auditArchX86_64, 463, "EPERM"},  // setxattrat
		{auditArchX86_64, 467, "EPERM"},  // open_tree_attr
		{auditArchX86_64, 469, allow},    // file_setattr
		{auditArchX86_64, 470, "ENOSYS"}, // the first number the policy does not know
		{auditArchX86_64, 512, "ENOSYS"}, // x32's range without the x32 bit
		{auditArchX86_64, 0x3fffffff, "ENOSYS"},
		{auditArchX86_64, x32SyscallBit | 470, "kill-process"},
		{auditArchX86_64, -1, allow}, // as before: libseccomp passes -1 on, the kernel says ENOSYS
		{auditArchI386, 20, allow},   // getpid
		{auditArchI386, 400, allow},  // i386's own numbering runs to 423
		{auditArchI386, 467, "EPERM"},
		{auditArchI386, 469, allow},
		{auditArchI386, 470, "ENOSYS"},
		{auditArchI386, 0x40000000, "ENOSYS"},
		{auditArchI386, -1, "ENOSYS"},
		{0xc00000b7, 470, "kill-process"}, // aarch64
	} {
		ret, err := run(prog, seccompData{nr: c.nr, arch: c.arch})
		if err != nil {
			t.Fatal(err)
		}
		if got := verdict(ret); got != c.want {
			t.Errorf("arch %#x nr %d: %s, want %s", c.arch, c.nr, got, c.want)
		}
	}
}
