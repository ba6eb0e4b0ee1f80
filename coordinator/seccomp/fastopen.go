package seccomp

// Constants of the TCP Fast Open rules (linux/socket.h, linux/net.h).
const (
	msgFastOpen        = 0x20000000 // MSG_FASTOPEN
	socketcallSendto   = 11         // SYS_SENDTO in socketcall(2)
	socketcallSendmsg  = 16         // SYS_SENDMSG
	socketcallSendmmsg = 20         // SYS_SENDMMSG
)

// fastOpenRules refuse client TCP Fast Open: sendto, sendmsg or sendmmsg
// with MSG_FASTOPEN on an unconnected TCP socket connects it to the address
// they carry (tcp_sendmsg_fastopen) without going through connect(2), so the
// LSM connect hook, and with it Landlock's TCP connect rules, never sees the
// address. The flags are an int to the kernel and the bit is below 32, so
// the mask reads only the low half. EOPNOTSUPP is what a kernel with client
// Fast Open off (net.ipv4.tcp_fastopen without bit 1) answers; clients that
// try it fall back to connect (curl, Chromium, Node), and nothing a sandboxed
// program does needs the round trip it saves. TCP_FASTOPEN_CONNECT stays
// allowed: its connect(2) meets the hook, and the data goes with the SYN to
// the address connect was allowed.
//
// On x86 the same calls go through socketcall, whose arguments are in
// memory: the subcalls are refused whatever their flags, first and with the
// same errno, as socketcallRules explains. 32-bit programs that send through
// socketcall (glibc built for kernels before 4.3) cannot make a socket there
// anyway; send (SYS_SEND) carries no address and stays allowed.
func fastOpenRules() []Rule {
	why := "MSG_FASTOPEN connects past the connect hook and Landlock's TCP connect rules"
	var rs []Rule
	for _, call := range []uint64{socketcallSendto, socketcallSendmsg, socketcallSendmmsg} {
		rs = append(rs, Rule{Syscall: "socketcall", Arch: []string{ArchX86}, Errno: EOPNOTSUPP,
			Why:   "socketcall hides the flags of sendto, sendmsg and sendmmsg from seccomp; the direct syscalls work",
			Conds: []Cond{{Arg: 0, Op: OpEq, Value: call}}})
	}
	for _, c := range []struct {
		name string
		arg  uint
	}{{"sendto", 3}, {"sendmsg", 2}, {"sendmmsg", 3}} {
		rs = append(rs, Rule{Syscall: c.name, Arch: bothArches, Errno: EOPNOTSUPP, Why: why,
			Conds: []Cond{{Arg: c.arg, Op: OpMaskedEq, Mask: msgFastOpen, Value: msgFastOpen}}})
	}
	return rs
}
