//go:build amd64

package seccomp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// childReport is what the child found; see kernel_linux_test.go.
type childReport struct {
	ListenProto     int               // SO_PROTOCOL of net.Listen's socket
	ListenErr       string            // why ListenProto is missing
	Filtered        map[string]string // probe -> "OK" or the errno name, on the filtered thread
	Control         map[string]string // the same on an unfiltered thread
	Skipped         map[string]string // probe -> why it did not run
	Status          map[string]string // "filtered", "control" -> Seccomp: in /proc/thread-self/status
	Threads         int               // threads in the process at the end
	FilteredThreads int               // of which in seccomp filter mode
	Exec            map[string]string // command -> combined output, exec'd from the filtered thread
}

var execCases = []struct {
	name string
	argv []string
	want string
}{
	{"sh", []string{"sh", "-c", "echo ok"}, "ok"},
	{"sh-status", []string{"sh", "-c", "grep ^Seccomp: /proc/self/status"}, "Seccomp:\t2"},
	{"git", []string{"git", "--version"}, "git version"},
	{"python3", []string{"python3", "-c", "import socket; socket.socket().close(); print('ok')"}, "ok"},
	{"unshare", []string{"unshare", "-U", "true"}, "Operation not permitted"},
}

func childMain(mode string) int {
	// The filter goes on this thread only; it stays locked until exit.
	runtime.LockOSThread()
	rep := childReport{Filtered: map[string]string{}, Control: map[string]string{},
		Skipped: map[string]string{}, Status: map[string]string{}, Exec: map[string]string{}}
	if mode == "filtered" {
		p, err := Build(Options{BlockMPTCP: true})
		if err == nil {
			err = p.LoadThread()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// First use of the net package in this process, on this thread: Go
	// probes MPTCP once and remembers the answer.
	rep.ListenProto, rep.ListenErr = listenProto()
	if mode == "listen" {
		return emit(rep)
	}
	probes := goProbes()
	rep.Status["filtered"] = seccompStatus()
	probes.run(rep.Filtered, rep.Skipped)
	done := make(chan struct{})
	go func() {
		// Locked as well, so this goroutine cannot land on the filtered
		// thread (a locked thread runs only its own goroutine). Never
		// unlocked: the probes may leave the thread odd, and a goroutine
		// that ends locked takes its thread with it.
		runtime.LockOSThread()
		rep.Status["control"] = seccompStatus()
		probes.run(rep.Control, map[string]string{})
		close(done)
	}()
	<-done
	for _, c := range execCases {
		if _, err := exec.LookPath(c.argv[0]); err != nil {
			rep.Skipped["exec/"+c.name] = "skipped: " + err.Error()
			continue
		}
		out, _ := exec.Command(c.argv[0], c.argv[1:]...).CombinedOutput()
		rep.Exec[c.name] = string(out)
	}
	rep.Threads, rep.FilteredThreads = countFilteredThreads()
	return emit(rep)
}

func emit(rep childReport) int {
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func listenProto() (int, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err.Error()
	}
	defer ln.Close()
	rc, err := ln.(*net.TCPListener).SyscallConn()
	if err != nil {
		return 0, err.Error()
	}
	var proto int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		proto, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PROTOCOL)
	}); err != nil {
		return 0, err.Error()
	}
	if serr != nil {
		return 0, serr.Error()
	}
	return proto, ""
}

// probeSet maps a probe name to a call that returns "OK", an errno name, or
// "killed: SIG..." for an exec'd probe; "" means it could not run.
type probeSet map[string]func() string

func (ps probeSet) run(into, skipped map[string]string) {
	for name, call := range ps {
		if res := call(); res != "" {
			into[name] = res
		} else {
			skipped[name] = "skipped: probe binary missing or not executable here (gcc -static for that width unavailable, or the kernel runs no 32-bit binaries)"
		}
	}
}

func errnoName(e unix.Errno) string {
	if e == 0 {
		return "OK"
	}
	return unix.ErrnoName(e)
}

func goProbes() probeSet {
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		panic(err)
	}
	root, _ := unix.BytePtrFromString("/")
	nowhere, _ := unix.BytePtrFromString("/nonexistent-acbox-seccomp-test")
	ptr := func(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }
	var c byte
	ps := probeSet{
		"go/unshare-newuser": sys(unix.SYS_UNSHARE, unix.CLONE_NEWUSER),
		"go/setns":           sys(unix.SYS_SETNS, ^uintptr(0), 0),
		// Flag pairs the kernel rejects with EINVAL before it creates anything.
		"go/clone-newuser":        sys(unix.SYS_CLONE, unix.CLONE_NEWUSER|unix.CLONE_FS),
		"go/clone-newns":          sys(unix.SYS_CLONE, unix.CLONE_NEWNS|unix.CLONE_FS),
		"go/clone-newnet":         sys(unix.SYS_CLONE, unix.CLONE_NEWNET|unix.CLONE_THREAD),
		"go/clone3":               sys(unix.SYS_CLONE3, 0, 0),
		"go/mount":                sys(unix.SYS_MOUNT, 0, ptr(root), 0, unix.MS_NOUSER, 0),
		"go/umount2":              sys(unix.SYS_UMOUNT2, ptr(root), 0x100),
		"go/chroot":               sys(unix.SYS_CHROOT, ptr(nowhere)),
		"go/socket-packet":        sockProbe(unix.AF_PACKET, unix.SOCK_RAW, 0),
		"go/socket-mptcp":         sockProbe(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP),
		"go/socket-mptcp6":        sockProbe(unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_MPTCP),
		"go/socket-netlink-diag":  sockProbe(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_SOCK_DIAG),
		"go/socket-netlink-route": sockProbe(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE),
		"go/socket-inet":          sockProbe(unix.AF_INET, unix.SOCK_STREAM, 0),
		"go/socketpair-unix": func() string {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
			return errnoName(errnoOf(err))
		},
		"go/ioctl-tiocsti":      sys(unix.SYS_IOCTL, uintptr(null), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))),
		"go/ioctl-tiocsti-high": sys(unix.SYS_IOCTL, uintptr(null), 1<<32|unix.TIOCSTI, uintptr(unsafe.Pointer(&c))),
		"go/ioctl-tioclinux":    sys(unix.SYS_IOCTL, uintptr(null), unix.TIOCLINUX, uintptr(unsafe.Pointer(&c))),
		"go/ioctl-tcgets":       sys(unix.SYS_IOCTL, uintptr(null), unix.TCGETS, uintptr(unsafe.Pointer(new(unix.Termios)))),
		"go/keyctl":             sys(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, ^uintptr(3) /* -4: user keyring */, 0),
		"go/ptrace":             sys(unix.SYS_PTRACE, unix.PTRACE_GETREGS, uintptr(unix.Gettid()), 0, 0),
		"go/io_uring_setup":     sys(unix.SYS_IO_URING_SETUP, 0, 0),
		"go/bpf":                sys(unix.SYS_BPF, 0, 0, 0),
		"go/userfaultfd":        sys(unix.SYS_USERFAULTFD, 0xffff),
		"go/perf_event_open":    sys(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0),
		"go/pidfd_getfd":        sys(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0),
		"go/personality-query":  sys(unix.SYS_PERSONALITY, 0xffffffff),
		"go/personality-no-randomize": func() string {
			res := sys(unix.SYS_PERSONALITY, 0x0040000 /* ADDR_NO_RANDOMIZE */)()
			if res == "OK" {
				sys(unix.SYS_PERSONALITY, 0)()
			}
			return res
		},
	}
	for name, call := range setidProbes() {
		ps[name] = call
	}
	for name, call := range limitProbes() {
		ps[name] = call
	}
	for name, call := range leaseProbes() {
		ps[name] = call
	}
	for name, call := range surfaceProbes() {
		ps[name] = call
	}
	for name, call := range fastOpenProbes() {
		ps[name] = call
	}
	for _, bits := range []string{"32", "64"} {
		path := os.Getenv("ACBOX_SECCOMP_PROBE" + bits)
		for _, name := range []string{"unshare", "int80-unshare", "int80-mount", "int80-socket-packet",
			"socket-unix", "int80-getpid", "x32-getpid"} {
			if bits == "32" && name == "x32-getpid" {
				continue
			}
			ps["probe"+bits+"/"+name] = execProbe(path, name)
		}
		for _, c := range setidCases32 {
			ps["probe"+bits+"/"+c.name] = execProbe(path, c.name)
		}
		for _, c := range slices.Concat(stackCases32, surfaceCases32, fastOpenCases32) {
			ps["probe"+bits+"/"+c.probe] = execProbe(path, c.probe)
		}
	}
	return ps
}

// sys makes a raw system call on the calling thread. Raw, so that the Go
// runtime does nothing around it.
func sys(nr uintptr, args ...uintptr) func() string {
	var a [6]uintptr
	copy(a[:], args)
	return func() string {
		r, _, e := unix.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if e == 0 && (nr == unix.SYS_IO_URING_SETUP || nr == unix.SYS_USERFAULTFD) {
			unix.Close(int(r))
		}
		return errnoName(e)
	}
}

func sockProbe(family, typ, proto int) func() string {
	return func() string {
		fd, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, proto)
		if err == nil {
			unix.Close(fd)
		}
		return errnoName(errnoOf(err))
	}
}

func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if err == nil || !errors.As(err, &e) {
		return 0
	}
	return e
}

// execProbe runs one call of testdata/probe.c in a fresh process, forked
// from the calling thread.
func execProbe(path, name string) func() string {
	return func() string {
		if _, err := os.Stat(path); err != nil {
			return ""
		}
		out, err := exec.Command(path, name).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return "killed: " + unix.SignalName(ws.Signal())
			}
		}
		return strings.TrimPrefix(strings.TrimSpace(string(out)), name+"=")
	}
}

// seccompStatus returns the Seccomp field of the calling thread's status.
func seccompStatus() string {
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		return err.Error()
	}
	return statusField(string(b), "Seccomp")
}

func statusField(status, key string) string {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func countFilteredThreads() (all, filtered int) {
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		all++
		if statusField(string(b), "Seccomp") == "2" {
			filtered++
		}
	}
	return all, filtered
}
