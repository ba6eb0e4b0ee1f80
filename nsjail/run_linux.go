package nsjail

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// forwarded are the signals pid 1 passes on to the member.
var forwarded = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH}

// run starts the member (whose thread has had every thread of pid 1 give
// up its capabilities first, applyLayers), reports ready, and then reaps
// and forwards signals until the member exits.
func (s *sandbox) run() (int, error) {
	// Opened while pid 1 still owns its /proc files (oomadj_linux.go).
	fork := &forking{status: s.status, adj: openOOMAdj()}
	defer fork.adj.close()
	// A user's pid 1 wrote its IPC limits in an IPC namespace of its own,
	// made beside the building of the root (rootfs.ipc); the member's
	// thread joins it.
	writeIPC := s.rfs.writeKernelSysctl
	ipcNS := &s.rfs.ipcNS
	if s.rfs.ipc != nil {
		s.rfs.ipcNS, s.rfs.ipcNSErr = s.rfs.ipc.collect()
		writeIPC = func(string, string) error { return s.rfs.ipcNSErr }
	}
	defer ipcNS.close()
	// Not dumpable: the member (same uid) cannot read /proc/1/environ, fd,
	// mem or ptrace pid 1. execve resets this for the member itself.
	if err := sys.Prctl("PR_SET_DUMPABLE", unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 0, &stepError{step: "prctl(PR_SET_DUMPABLE)", err: err}
	}
	if err := s.awaitRelease(); err != nil {
		return 0, err
	}
	err := applyLimits(s.cfg.Plan, s.rep, s.cfg.PidsCgroup, s.cfg.UserCounters, s.rfs.writeUserSysctl)
	s.rfs.closeUserSysctl()
	if err == nil {
		err = capIPCLimits(s.cfg.IPCLimits, s.cfg.Plan, s.rep, writeIPC)
	}
	s.rfs.closeKernelSysctl()
	if err != nil {
		return 0, err
	}
	// Caught before the ready message (startMember): the parent passes
	// signals on from then, and an uncaught SIGTERM would end pid 1 (Go's
	// default action).
	sigs := make(chan os.Signal, 32)
	if beforeMemberStart != nil {
		beforeMemberStart(s.cfg)
	}
	pid, err := startMember(s.cfg, s.rep, s.mio, sigs, fork, ipcNS)
	if err != nil {
		return 0, err
	}
	s.member = pid
	if afterMemberStart != nil {
		afterMemberStart(s.cfg)
	}
	s.status.Write(encodeMsg(helperMsg{Kind: "ready", Report: s.rep, Pid: pid, Entered: len(s.cfg.CgroupLeaves)}))
	go forward(sigs, pid)
	return s.reap(), nil
}

// afterMemberStart and beforeMemberStart are test hooks (set only in the
// test binary's pid 1): they run once the member exists, before the ready
// message, and before pid 1 starts it (and sends its fork message).
var afterMemberStart, beforeMemberStart func(*helperConfig)

// forward passes the signals pid 1 receives on to the member.
func forward(sigs <-chan os.Signal, pid int) {
	for sig := range sigs {
		sys.Kill(pid, sig.(syscall.Signal))
	}
}

// reap collects every child (pid 1 inherits orphans) until the member
// exits, and returns its status as a shell would (128+N for signal N). It
// waits in wait4 itself rather than on SIGCHLD: the main goroutine is
// locked to its thread, and every wake-up through a channel would hand
// that thread over.
func (s *sandbox) reap() int {
	for {
		var ws unix.WaitStatus
		pid, err := sys.Wait4(-1, &ws, 0, nil) // EINTR retried there
		if err != nil {
			// No child left (ECHILD) cannot happen before the member is
			// reaped; stop rather than spin.
			s.status.Write(encodeMsg(helperMsg{Kind: "error", Error: err.Error(), Step: "reap"}))
			return policy.ExitCannotSandbox
		}
		if pid != s.member {
			continue
		}
		msg := helperMsg{Kind: "exit"}
		code := ws.ExitStatus()
		if ws.Signaled() {
			msg.Signal = int(ws.Signal())
			code = 128 + msg.Signal
		} else {
			msg.Code = code
		}
		s.status.Write(encodeMsg(msg))
		return code
	}
}

// capset's arguments for dropAllThreadsCaps: empty sets, but for the
// capability kept. Package variables, because the other threads read them
// through plain addresses while the calling goroutine's stack may move
// (escape analysis kept the former locals on the stack).
var (
	dropHdr  = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	dropData [2]unix.CapUserData
)

// ptraceCap is CAP_SYS_PTRACE's bit in the first word of capset's data.
const ptraceCap = 1 << unix.CAP_SYS_PTRACE

// dropAllThreadsCaps empties pid 1's capability sets on every thread (psx
// runs the syscall on all threads under cgo), once setup is done and
// before the member exists (applyLayers), keeping only keep (0 or
// ptraceCap, bits of the first word) in the permitted and effective sets.
// One broadcast: emptying the inheritable set empties the ambient set too
// (the kernel keeps ambient a subset of permitted and inheritable,
// cap_capset), so a separate PR_CAP_AMBIENT_CLEAR_ALL round would signal
// every thread again for nothing; TestDropAllThreadsCaps checks the four
// sets on every thread. Raw on purpose: coordinator/sys calls on the
// calling thread only, and psx must be the one to broadcast the call.
func dropAllThreadsCaps(keep uint32) error {
	dropData[0].Permitted, dropData[0].Effective = keep, keep
	if _, _, e := psx.Syscall3(unix.SYS_CAPSET, ptr(&dropHdr), ptrData(&dropData[0]), 0); e != 0 {
		return os.NewSyscallError("capset", e)
	}
	return nil
}
