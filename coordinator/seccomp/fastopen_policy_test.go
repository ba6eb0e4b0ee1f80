//go:build linux && amd64

package seccomp

import "testing"

// The TCP Fast Open rules in the interpreter: sendto, sendmsg and sendmmsg
// with MSG_FASTOPEN in their flags connect without the connect hook, so
// they are refused on both architectures whatever else the flags hold; the
// same calls without it stay allowed. On x86 the socketcall subcalls carry
// their flags in memory and are refused whatever their registers say, while
// send and connect through socketcall stay allowed. TestKernel makes the
// same calls on the real kernel.
func TestFastOpenIsRefused(t *testing.T) {
	prog := buildForTest(t).insns()
	const dontwait, nosignal = 0x40, 0x4000
	flagged := []uint64{msgFastOpen, msgFastOpen | dontwait | nosignal, 0xffff_ffff, 1<<32 | msgFastOpen}
	plain := []uint64{0, dontwait | nosignal, 0xffff_ffff &^ msgFastOpen, 1 << 32}
	for _, arch := range bothArches {
		for _, c := range []struct {
			name string
			arg  int
		}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}} {
			for _, f := range flagged {
				if arch == ArchX86 && f > 0xffff_ffff {
					continue // x86 has no high half
				}
				args := make([]uint64, 6)
				args[c.arg] = f
				if got := eval(t, prog, arch, c.name, args...); got != "EOPNOTSUPP" {
					t.Errorf("%s %s flags %#x: %s, want EOPNOTSUPP", arch, c.name, f, got)
				}
			}
			for _, f := range plain {
				if arch == ArchX86 && f > 0xffff_ffff {
					continue
				}
				args := make([]uint64, 6)
				args[c.arg] = f
				if got := eval(t, prog, arch, c.name, args...); got != allow {
					t.Errorf("%s %s flags %#x: %s, want it allowed", arch, c.name, f, got)
				}
			}
		}
	}
	for _, c := range []struct {
		sub  uint64
		want string
	}{
		{socketcallSendto, "EOPNOTSUPP"}, {socketcallSendmsg, "EOPNOTSUPP"}, {socketcallSendmmsg, "EOPNOTSUPP"},
		{9 /* SYS_SEND */, allow}, {3 /* SYS_CONNECT */, allow}, {17 /* SYS_RECVMSG */, allow},
	} {
		for _, mem := range []uint64{0, 0x0804_a000, 0xffff_ffff} {
			if got := eval(t, prog, ArchX86, "socketcall", c.sub, mem); got != c.want {
				t.Errorf("x86 socketcall(%d, %#x): %s, want %s", c.sub, mem, got, c.want)
			}
		}
	}
}
