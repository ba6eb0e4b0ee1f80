package seccomp

import (
	"fmt"
	"runtime"
)

// The listen filter: in host mode, listen(2) goes to pid 1's supervisor
// (nsjail/listen_linux.go) through seccomp user notification, because
// listen on an unbound TCP socket binds a port the kernel picks (autobind),
// a bind Landlock never sees: Landlock has no listen right (upstream
// landlock-lsm/linux issue 15). It is a second filter, stacked on the
// policy's and loaded in host mode only; the policy's filter, its digest
// and the docker profile stay the same in every mode. It is small and
// fixed, so it is written here as BPF rather than compiled by libseccomp.
//
// x86's socketcall(SYS_LISTEN) passes the descriptor in memory, which the
// supervisor could only read racily, so it is refused (EACCES, what a
// refused listen says); 32-bit programs that use socketcall cannot make a
// socket through it either (socketcallRules). Any other architecture is
// left to the policy's filter, which kills it.

// Numbers the listen filter compares (arch/x86/entry/syscalls, linux/net.h).
const (
	nrListenAMD64    = 50
	nrListenX86      = 363
	nrSocketcallX86  = 102
	socketcallListen = 4 // SYS_LISTEN
	eacces           = 13
	retUserNotif     = 0x7fc00000 // SECCOMP_RET_USER_NOTIF
	retAllowAll      = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrnoBase     = 0x00050000 // SECCOMP_RET_ERRNO
	auditX86_64      = 0xc000003e
	auditI386        = 0x40000003
	offNr, offArch   = 0, 4
	offArg0Low       = 16 // args[0], low half on a little-endian host
)

// BPF opcodes (linux/bpf_common.h).
const (
	bpfLdWAbs = 0x20
	bpfJeqK   = 0x15
	bpfRetK   = 0x06
)

// listenInsns is the listen filter. Jumps are relative to the next
// instruction; the three returns are the last three instructions.
func listenInsns() []insn {
	const allowAt, notifAt, refuseAt = 10, 11, 12
	j := func(pc, to int) uint8 { return uint8(to - pc - 1) }
	return []insn{
		0:  {code: bpfLdWAbs, k: offArch},
		1:  {code: bpfJeqK, k: auditX86_64, jt: 0, jf: j(1, 4)},
		2:  {code: bpfLdWAbs, k: offNr},
		3:  {code: bpfJeqK, k: nrListenAMD64, jt: j(3, notifAt), jf: j(3, allowAt)},
		4:  {code: bpfJeqK, k: auditI386, jt: 0, jf: j(4, allowAt)},
		5:  {code: bpfLdWAbs, k: offNr},
		6:  {code: bpfJeqK, k: nrListenX86, jt: j(6, notifAt), jf: 0},
		7:  {code: bpfJeqK, k: nrSocketcallX86, jt: 0, jf: j(7, allowAt)},
		8:  {code: bpfLdWAbs, k: offArg0Low},
		9:  {code: bpfJeqK, k: socketcallListen, jt: j(9, refuseAt), jf: j(9, allowAt)},
		10: {code: bpfRetK, k: retAllowAll},
		11: {code: bpfRetK, k: retUserNotif},
		12: {code: bpfRetK, k: retErrnoBase | eacces},
	}
}

// ListenProgram returns the listen filter, ready for LoadListener. It
// knows x86_64 and x86 numbers only, so on any other host it is refused
// rather than returned: there it would let listen through unseen.
func ListenProgram() (*Program, error) {
	if runtime.GOARCH != "amd64" {
		return nil, fmt.Errorf("%w: the listen filter is written for x86_64 hosts, not %s", ErrUnsupported, runtime.GOARCH)
	}
	ins := listenInsns()
	b := make([]byte, 0, len(ins)*insnSize)
	for _, in := range ins {
		b = appendInsn(b, in)
	}
	p, err := newProgram(b, Arches())
	if err != nil {
		panic(err) // a fixed program of 13 instructions (bug)
	}
	return p, nil
}
