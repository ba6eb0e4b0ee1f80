package seccomp

// socketRules keep the member to the socket families a program normally
// needs. Every other family is attack surface (and a module autoload) that
// the member has no use for.
func socketRules(o Options) []Rule {
	rs := socketcallRules()
	families := outside(0, afUnix, afInet, afInet6, afNetlink)
	why := "socket family other than unix, inet, inet6, netlink"
	rs = append(rs, refuseIf("socket", EAFNOSUPPORT, why, families...)...)
	// socketpair creates sockets of a family too (AF_UNIX in practice).
	rs = append(rs, refuseIf("socketpair", EAFNOSUPPORT, why, families...)...)
	// NETLINK_ROUTE is what net.Interfaces, ip and Node's
	// os.networkInterfaces use; SOCK_DIAG, AUDIT, KOBJECT_UEVENT and the rest
	// stay shut. EPROTONOSUPPORT is what the kernel says for a netlink
	// protocol it does not have. "> 0" on all 64 bits also refuses a 0 with
	// junk in the high half, which the kernel would read as NETLINK_ROUTE:
	// refusing too much there is the safe side.
	rs = append(rs, Rule{Syscall: "socket", Arch: bothArches, Errno: EPROTONOSUPPORT,
		Why:   "netlink protocols other than NETLINK_ROUTE",
		Conds: []Cond{{Arg: 0, Op: OpEq, Value: afNetlink}, {Arg: 2, Op: OpGt, Value: netlinkRoute}}})
	if o.BlockMPTCP {
		rs = append(rs, mptcpRules()...)
	}
	return rs
}

// socketcallRules: on x86, glibc (Debian's is built for kernel 3.2) and Go's
// 386 port create sockets through socketcall(2), whose arguments are in
// memory where seccomp cannot read them. Letting SYS_SOCKET and
// SYS_SOCKETPAIR through would let any 32-bit program skip the family and
// MPTCP rules, so they are refused; the calls that act on an existing socket
// (connect, sendmsg, accept, ...) stay allowed. A 32-bit program that uses
// the direct socket(2) syscall (kernel 4.3+, musl) meets the rules above.
//
// libseccomp does the same on its own: given a socket rule with argument
// conditions on x86, it also refuses socketcall(SYS_SOCKET) outright, with
// that rule's errno, and it rejects a second action for the same call
// (EEXIST). So these rules come first and carry the family rules' errno,
// EAFNOSUPPORT, which also reads right: that kind of socket is not available.
func socketcallRules() []Rule {
	why := "socketcall hides socket's arguments from seccomp; the direct socket syscall works"
	var rs []Rule
	for _, call := range []uint64{socketcallSocket, socketcallPair} {
		rs = append(rs, Rule{Syscall: "socketcall", Arch: []string{ArchX86}, Errno: EAFNOSUPPORT, Why: why,
			Conds: []Cond{{Arg: 0, Op: OpEq, Value: call}}})
	}
	return rs
}

// mptcpRules refuse Multipath TCP, which Landlock's TCP rules do not cover
// (docs/kernel-facts.md 5). EPROTONOSUPPORT is what a kernel without MPTCP returns:
// Go's net package then records MPTCP as unavailable once and uses plain TCP
// (net/mptcpsock_linux.go, initMPTCPavailable), and other clients with a
// fallback treat it the same. ENOPROTOOPT (net.mptcp.enabled=0) would make Go
// try MPTCP again on every listen and dial. The protocol is an int to the
// kernel, so only the low 32 bits are compared.
func mptcpRules() []Rule {
	var rs []Rule
	for _, fam := range []uint64{afInet, afInet6} {
		rs = append(rs, Rule{Syscall: "socket", Arch: bothArches, Errno: EPROTONOSUPPORT,
			Why:   "Multipath TCP is outside Landlock's TCP rules",
			Conds: []Cond{{Arg: 0, Op: OpEq, Value: fam}, {Arg: 2, Op: OpMaskedEq, Mask: low32, Value: ipprotoMPTCP}}})
	}
	return rs
}
