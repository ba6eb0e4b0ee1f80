package nsjail

import (
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// pid 1's timer slack. The Go runtime's monitor thread (sysmon) sleeps 20
// µs at a time while a goroutine is in a system call, and pid 1's setup is
// mostly system calls (mounts): about 60 wake-ups, a third of pid 1's
// context switches, in a 10 ms launch. With a wider slack the kernel may
// let each of those sleeps run until another timer fires anyway, so the
// monitor wakes far less often; pid 1 has no deadline tighter than that.
// 250 us buys the same CPU as 2 ms (about 0.6 ms per launch) without 2 ms's
// cost in wall time (+0.4 ms: the scheduler's own 3 us sleeps stretched);
// the parent gains nothing from it (its all-thread broadcast costs more).
// The parent's spawning thread lends pid 1 the slack (lendSlack): a child
// thread's slack, current and default, is its creator's, so pid 1's
// monitor thread has it from its first sleep and needs no all-thread
// broadcast, which is a real-time signal per thread that the kernel may
// refuse when the user's pending signals are used up (the Go runtime then
// waits forever). raiseSlack broadcasts only for a pid 1 that was not lent
// one (another build as Options.Exe, a caller with no slack to lend). The
// member gets back the slack the launching thread had (restoreSlack).

// pid1Slack is pid 1's own timer slack, in ns.
const pid1Slack = 250_000

// memberSlack is the timer slack pid 1 started with; 0: left as it was.
var memberSlack uintptr

// raiseSlack sets pid1Slack on every thread of pid 1 (the monitor thread
// exists before any package's init runs; threads started later inherit it
// from the thread that starts them). Best effort: it changes only how
// often pid 1 wakes. Raw on purpose: the call must reach every thread, and
// the slack read back is prctl's return value, which coordinator/sys does
// not return. Not through psx as dropAllThreadsCaps: in a cgo build (the
// tests) psx's broadcast this early never returns; the runtime's own
// broadcast refuses cgo builds (ENOTSUP), which then keep the slack.
func raiseSlack() {
	cur, _, e := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0)
	// 0: a real-time thread, for which the kernel ignores the slack.
	if e != 0 || cur == 0 || cur >= pid1Slack {
		return
	}
	if _, _, e := syscall.AllThreadsSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, pid1Slack, 0); e == 0 {
		memberSlack = cur
	}
}

// restoreSlack gives the calling thread, the one the member is forked
// from, the slack pid 1 started with: a child's slack, current and
// default, is its parent thread's current one.
func restoreSlack() error {
	if memberSlack == 0 {
		return nil
	}
	return sys.Prctl("PR_SET_TIMERSLACK", unix.PR_SET_TIMERSLACK, memberSlack, 0, 0, 0)
}

// lendSlack gives the calling thread, locked and about to clone pid 1,
// pid1Slack, and returns the slack it had (0: it kept its own). The thread
// only waits for pid 1 from then on.
func lendSlack() uint64 {
	cur, _, e := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0)
	if e != 0 || cur == 0 || cur >= pid1Slack {
		return 0
	}
	if _, _, e := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, pid1Slack, 0); e != 0 {
		return 0
	}
	return uint64(cur)
}

// returnSlack gives the lending thread back the slack lendSlack returned
// (0: it kept its own), once it has waited for pid 1.
func returnSlack(prev uint64) {
	if prev != 0 {
		unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, uintptr(prev), 0)
	}
}
