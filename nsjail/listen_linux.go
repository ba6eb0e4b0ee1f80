package nsjail

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/seccomp"
	"github.com/acbox/acbox/coordinator/sys"
)

// The listen guard (host mode only). listen(2) on an unbound TCP socket
// binds a port the kernel picks, on every address, and Landlock, which has
// no listen right (landlock-lsm/linux issue 15), never sees that bind: an
// attack listened on 0.0.0.0:56481 under --bind-port 18096. In the other
// modes the sandbox has a network namespace of its own and a listener
// there is reachable from nowhere else.
//
// A second seccomp filter sends the member's listen calls to pid 1
// (seccomp.ListenProgram). The supervisor, on a thread of pid 1 outside
// the member's restrictions, takes the socket with pidfd_getfd and decides
// on that file: an inet socket must already be bound to a --bind-port port
// (a bind Landlock checked), and the supervisor then calls listen itself
// on its duplicate, the same open file as the member's, and answers with
// the result. Checking and acting on one file leaves nothing to swap;
// SECCOMP_USER_NOTIF_FLAG_CONTINUE would let the kernel redo the lookup
// of the member's descriptor number, which the member can change in
// between. Unix sockets are listened on as asked; other families are
// refused (localPort).
//
// pidfd_getfd needs ptrace access to the member (PTRACE_MODE_ATTACH_
// REALCREDS): a member that made itself non-dumpable is beyond a process
// without CAP_SYS_PTRACE over its user namespace, so pid 1 keeps that
// capability, the sandbox namespace's, in host mode (pid1Keeps).

const listenGuardName = "listen_guard"

// probeListenGuard checks, on pid 1's own unfiltered thread, that the
// kernel has what the guard needs: seccomp user notification (Linux 5.0)
// and pidfd_getfd (5.6).
func probeListenGuard() error {
	if _, err := seccomp.ListenProgram(); err != nil {
		return err
	}
	if err := sys.SeccompActionAvail(unix.SECCOMP_RET_USER_NOTIF); err != nil {
		return fmt.Errorf("seccomp user notification (Linux 5.0): %w", err)
	}
	pidfd, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		return fmt.Errorf("pidfd_open (Linux 5.3): %w", err)
	}
	defer sys.Close(pidfd)
	dup, err := sys.PidfdGetfd(pidfd, pidfd)
	if err != nil {
		return fmt.Errorf("pidfd_getfd (Linux 5.6): %w", err)
	}
	sys.Close(dup)
	return nil
}

// pid1KeepsWhy is the enforced guard's note in the report: the one
// capability pid 1 keeps for it (pid1Keeps).
const pid1KeepsWhy = "pid 1 keeps CAP_SYS_PTRACE in the sandbox's user namespace (never the member's, never over host " +
	"processes) to take the member's socket with pidfd_getfd, which a member that made itself non-dumpable " +
	"(ssh-agent, gpg-agent) would otherwise refuse"

// listenGuardControl records the guard in host mode: enforced when the
// kernel has what it needs (probe, normally probeListenGuard), otherwise a
// shortfall that refuses the launch (verify) unless --best-effort.
func listenGuardControl(rep *policy.Report, probe func() error) {
	c := policy.Control{Name: listenGuardName, Requested: true, Enforced: true, Why: pid1KeepsWhy}
	if err := probe(); err != nil {
		c.Enforced = false
		c.Why = "--net host needs it to keep listen() from binding a port the kernel picks, which Landlock's " +
			"--bind-port rules never check; this kernel lacks " + err.Error() + "; use Linux 5.6 or later, or --net none or proxy"
	}
	rep.Controls = append(rep.Controls, c)
}

// guardEnforced reports whether the plan's report holds an enforced guard.
func guardEnforced(rep *policy.Report) bool {
	for _, c := range rep.Controls {
		if c.Name == listenGuardName {
			return c.Enforced
		}
	}
	return false
}

// loadListenGuard stacks the listen filter on the calling (restricted)
// thread when the guard is enforced and returns the notification
// descriptor, or -1.
func loadListenGuard(rep *policy.Report) (int, error) {
	if !guardEnforced(rep) {
		return -1, nil
	}
	prog, err := seccomp.ListenProgram()
	if err != nil {
		return -1, &stepError{step: "listen guard", err: err}
	}
	fd, err := prog.LoadListener()
	if err != nil {
		return -1, &stepError{step: "listen guard", err: err}
	}
	return fd, nil
}

// superviseListen answers the member's listen calls until the descriptor
// fails. Then it closes it: the kernel answers every listen still waiting,
// and every later one, with ENOSYS, so the guard fails closed.
func superviseListen(notify int, bindPorts []uint16) {
	allowed := map[int]bool{}
	for _, p := range bindPorts {
		allowed[int(p)] = true
	}
	defer sys.Close(notify)
	for {
		var req sys.SeccompNotif
		if err := sys.SeccompNotifRecv(notify, &req); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // interrupted, or the caller went away before we read it
			}
			return
		}
		errno, answer := answerListen(notify, &req, allowed)
		if answer {
			sys.SeccompNotifSend(notify, req.ID, errno) // ENOENT: the caller is gone or was interrupted
		}
	}
}

// answerListen takes the member's socket and decides. answer is false when
// the notification is no longer valid (the calling thread is gone, so the
// pid may name another task now).
func answerListen(notify int, req *sys.SeccompNotif, allowed map[int]bool) (errno unix.Errno, answer bool) {
	pidfd, err := taskPidfd(int(req.Pid))
	if err != nil {
		return unix.EACCES, sys.SeccompNotifIDValid(notify, req.ID) == nil
	}
	defer sys.Close(pidfd)
	sock, err := sys.PidfdGetfd(pidfd, int(int32(req.Args[0])))
	if sys.SeccompNotifIDValid(notify, req.ID) != nil {
		if err == nil {
			sys.Close(sock)
		}
		return 0, false
	}
	if err != nil {
		if errors.Is(err, unix.EBADF) {
			return unix.EBADF, true
		}
		return unix.EACCES, true // not ours to take (Yama's ptrace_scope 3, say): fail closed
	}
	defer sys.Close(sock)
	return listenChecked(sock, int(int32(req.Args[1])), allowed), true
}

// listenChecked: an inet socket must be bound to an allowed port before and
// after listen. Before: the port Landlock checked at bind (port 0 means
// unbound, and a socket whose connect failed can show a stale port while
// unbound, so the port must be an allowed one, not just non-zero). After:
// the port listen left, which is the bound one; should it differ, the
// listener is shut at once and the call refused.
func listenChecked(sock, backlog int, allowed map[int]bool) unix.Errno {
	port, inet, err := localPort(sock)
	if err != nil {
		return errnoOr(err, unix.EACCES)
	}
	if inet && !allowed[port] {
		return unix.EACCES
	}
	if err := sys.Listen(sock, backlog); err != nil {
		return errnoOr(err, unix.EACCES)
	}
	if !inet {
		return 0
	}
	if after, _, err := localPort(sock); err != nil || after != port {
		sys.Shutdown(sock, unix.SHUT_RDWR)
		return unix.EACCES
	}
	return 0
}

// localPort is the socket's local port and whether it is an inet one.
// ENOTSOCK passes through: it is what listen says for a file. A family
// other than Unix and inet is refused with EOPNOTSUPP, unchecked and not
// listened on: the guard checks only what it knows, and EOPNOTSUPP is
// listen(2)'s own answer for a socket that cannot listen, the kernel's for
// netlink, the one other family the member's seccomp filter lets it
// create; EACCES would tell a program it lacked a permission it could ask
// for, where no --bind-port rule can allow such a listener.
func localPort(sock int) (port int, inet bool, err error) {
	domain, err := sys.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN, "SO_DOMAIN")
	if err != nil {
		return 0, false, err
	}
	switch domain {
	case unix.AF_UNIX:
		return 0, false, nil
	case unix.AF_INET, unix.AF_INET6:
	default:
		return 0, false, unix.EOPNOTSUPP
	}
	if typ, err := sys.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE, "SO_TYPE"); err != nil || typ == unix.SOCK_DGRAM {
		return 0, true, unix.EOPNOTSUPP // what listen says for UDP, which has no listen
	}
	sa, err := sys.Getsockname(sock)
	if err != nil {
		return 0, true, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port, true, nil
	case *unix.SockaddrInet6:
		return a.Port, true, nil
	}
	return 0, true, unix.EACCES
}

func errnoOr(err error, def unix.Errno) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return def
}

// taskPidfd opens a pidfd for the thread that called listen: its own
// (PIDFD_THREAD, Linux 6.9) or its thread group's; pidfd_getfd reads the
// descriptor table either way.
func taskPidfd(tid int) (int, error) {
	if fd, err := sys.PidfdOpen(tid); err == nil {
		return fd, nil
	}
	if fd, err := sys.PidfdOpenFlags(tid, unix.PIDFD_THREAD); err == nil {
		return fd, nil
	}
	tgid, err := threadGroup(tid)
	if err != nil {
		return -1, err
	}
	return sys.PidfdOpen(tgid)
}

// threadGroup is the thread group of tid, from /proc (pid 1's, the
// sandbox's pid namespace, which the notification's pid is in).
func threadGroup(tid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no Tgid", tid)
}
