//go:build linux && amd64

package seccomp

import (
	"slices"
	"testing"
)

// x86 reaches the socket calls through socketcall (102) and the System V
// IPC calls through ipc (117) as well as directly, and the multiplexers
// take the call's arguments in memory. A rule on such a call is only a
// rule if the multiplexer's subcall is refused whatever its arguments;
// today that is socket and socketpair (socket.go). The subcall numbers are
// linux/net.h's SYS_* and linux/ipc.h's.
var (
	socketcallSubcalls = map[string]uint64{
		"socket": 1, "bind": 2, "connect": 3, "listen": 4, "accept": 5, "getsockname": 6, "getpeername": 7,
		"socketpair": 8, "send": 9, "recv": 10, "sendto": 11, "recvfrom": 12, "shutdown": 13, "setsockopt": 14,
		"getsockopt": 15, "sendmsg": 16, "recvmsg": 17, "accept4": 18, "recvmmsg": 19, "sendmmsg": 20,
	}
	ipcSubcalls = map[string]uint64{
		"semop": 1, "semget": 2, "semctl": 3, "semtimedop": 4, "msgsnd": 11, "msgrcv": 12, "msgget": 13,
		"msgctl": 14, "shmat": 21, "shmdt": 22, "shmget": 23, "shmctl": 24,
	}
)

func TestX86MultiplexersDoNotBypassRules(t *testing.T) {
	prog := buildForTest(t).insns()
	junk := [][]uint64{{0, 0, 0}, {0, 0x0804_a000, 0}, {0, 0xffff_ffff, 0xffff_ffff}}
	for _, r := range Policy() {
		if !slices.Contains(r.Arch, ArchX86) {
			continue
		}
		for mux, subs := range map[string]map[string]uint64{"socketcall": socketcallSubcalls, "ipc": ipcSubcalls} {
			sub, ok := subs[r.Syscall]
			if !ok {
				continue
			}
			for _, args := range junk {
				args[0] = sub
				if got := eval(t, prog, ArchX86, mux, args...); got == allow {
					t.Errorf("rule %s: x86 %s(%d, %#x) is allowed, a way around it", r, mux, sub, args[1:])
				}
			}
		}
	}
}
