package nsjail

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/acbox/acbox/coordinator/sys"
)

// forwarded are the signals pid 1 passes on to the member.
var forwarded = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2, unix.SIGWINCH}

// run starts the member, reports ready, gives up pid 1's own capabilities
// and then reaps and forwards signals until the member exits.
func (s *sandbox) run() (int, error) {
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, append([]os.Signal{unix.SIGCHLD}, forwarded...)...)
	// Not dumpable: the member (same uid) cannot read /proc/1/environ, fd,
	// mem or ptrace pid 1. execve resets this for the member itself.
	if err := sys.Prctl("PR_SET_DUMPABLE", unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 0, &stepError{step: "prctl(PR_SET_DUMPABLE)", err: err}
	}
	if err := s.awaitRelease(); err != nil {
		return 0, err
	}
	if err := applyLimits(s.cfg.Plan, s.rep, s.cfg.PidsCgroup, s.cfg.UserCounters); err != nil {
		return 0, err
	}
	p, err := startMember(s.cfg, s.rep, s.mio)
	if err != nil {
		return 0, err
	}
	s.member = p
	t := time.Now()
	if err := dropAllThreadsCaps(); err != nil {
		p.Kill()
		return 0, &stepError{step: "drop pid 1 capabilities", err: err}
	}
	s.rep.PhasesMS["drop_pid1_caps"] = ms(time.Since(t))
	s.status.Write(encodeMsg(helperMsg{Kind: "ready", Report: s.rep, Pid: p.Pid}))
	return s.reap(sigs), nil
}

// reap collects every child (pid 1 inherits orphans) and forwards signals.
// It returns the member's status as a shell would (128+N for signal N).
func (s *sandbox) reap(sigs chan os.Signal) int {
	for {
		if code, done := s.reapOnce(); done {
			return code
		}
		sig := <-sigs
		if sig != unix.SIGCHLD {
			sys.Kill(s.member.Pid, sig.(syscall.Signal))
		}
	}
}

func (s *sandbox) reapOnce() (int, bool) {
	for {
		var ws unix.WaitStatus
		pid, err := sys.Wait4(-1, &ws, unix.WNOHANG, nil) // EINTR retried there
		if err != nil || pid <= 0 {
			return 0, false
		}
		if pid != s.member.Pid {
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
		return code, true
	}
}

// dropAllThreadsCaps clears pid 1's ambient and capability sets on every
// thread (psx runs the syscall on all threads under cgo), once setup is done.
// Raw on purpose: coordinator/sys calls on the calling thread only, and
// psx must be the one to broadcast the call.
func dropAllThreadsCaps() error {
	if _, _, e := psx.Syscall6(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0); e != 0 {
		return os.NewSyscallError("prctl(PR_CAP_AMBIENT_CLEAR_ALL)", e)
	}
	// Heap-allocated and kept alive: the addresses are passed as uintptr.
	hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := new([2]unix.CapUserData)
	_, _, e := psx.Syscall3(unix.SYS_CAPSET, ptr(hdr), ptrData(&data[0]), 0)
	runtime.KeepAlive(hdr)
	runtime.KeepAlive(data)
	if e != 0 {
		return os.NewSyscallError("capset", e)
	}
	return nil
}
