package nsjail

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Options for one launch. Zero values: the process's own standard streams
// and /proc/self/exe as the helper binary.
type Options struct {
	Stdin, Stdout, Stderr *os.File
	// Exe is the acbox binary re-executed as the sandbox's pid 1; it must
	// be the same build as this process (pid 1 refuses a config field it
	// does not know).
	Exe string
	// ID names the sandbox; empty: a random one.
	ID string
	// OnReady is called once the member runs, with the sandbox's id, the
	// host pid of its pid 1 and the enforcement report.
	OnReady func(backend.Started)
	// ProxySocket is the egress proxy's Unix socket; required in proxy
	// mode. The helper gets an O_PATH descriptor of it, never the path.
	ProxySocket string
	// Signals are signals the caller caught before Launch and catches
	// until it returns (backend.LaunchIO.Signals): the forwarded ones
	// among them are passed on to the member. Nil: Launch catches the
	// forwarded signals itself, from its start.
	Signals <-chan os.Signal

	afterOpen    func()        // test hook: after the grants are opened, before the helper starts
	beforeMaps   func(pid int) // test hook: after pid 1's exec, before its id maps are written
	afterRelease func()        // test hook: after the member's start is released, before supervise
}

// Capabilities a user's helper needs in its user namespace for setup (root's
// gets them all: ambientCaps; host mode adds CAP_SYS_PTRACE, which pid 1
// keeps for the listen guard); the member's thread drops them all before
// its first instruction.
var helperCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP, unix.CAP_SYS_RESOURCE}

// Launch runs the plan's command in a new sandbox and waits for it. It
// never runs the command with less isolation than the plan asks for: any
// failed step ends the launch with an error naming the step.
func Launch(p *policy.Plan, o Options) (*backend.Outcome, error) {
	o = o.withDefaults()
	// Caught from the start, so a signal sent while the sandbox is set up
	// cannot kill acbox with its default action; supervise holds it until
	// the member has started and then passes it on.
	if o.Signals == nil {
		sigs := make(chan os.Signal, 16)
		signal.Notify(sigs, forwarded...)
		defer signal.Stop(sigs)
		o.Signals = sigs
	}
	if err := checkRlimitRoom(p.Limits); err != nil {
		return nil, err
	}
	held, err := openGrants(p)
	if err != nil {
		return nil, err
	}
	defer held.close()
	if o.afterOpen != nil {
		o.afterOpen()
	}
	l := &launch{plan: p, opt: o, held: held, start: time.Now(), digest: make(chan string, 1)}
	// The policy digest (about 0.5 ms) is computed while the helper starts.
	go func() { l.digest <- policy.PolicyDigest() }()
	if p.Network.Mode == "proxy" {
		if o.ProxySocket == "" {
			return nil, fmt.Errorf("%w: proxy mode needs the egress proxy's socket", policy.ErrCannotSandbox)
		}
		fd, err := sys.Open(o.ProxySocket, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: proxy mode needs the egress proxy's socket: %w", policy.ErrCannotSandbox, err)
		}
		l.proxy = os.NewFile(uintptr(fd), o.ProxySocket)
		defer l.proxy.Close()
	}
	// cgroup hook: the sandbox's own cgroup where the host allows one
	// (cgroup_linux.go); removed here, after run() has waited for the helper.
	l.cg = newCgroup(o.ID, p.Limits)
	defer l.cg.remove()
	defer l.releaseChild()
	return l.run()
}

// releaseChild closes pid 1's pidfd when the launch returns.
func (l *launch) releaseChild() {
	if l.child != nil {
		l.child.release()
	}
}

func (o Options) withDefaults() Options {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Exe == "" {
		o.Exe = "/proc/self/exe"
	}
	if o.ID == "" {
		o.ID = backend.NewID()
	}
	return o
}

type launch struct {
	plan   *policy.Plan
	opt    Options
	held   *heldPaths
	start  time.Time
	child  *child // pid 1, once started
	waited chan error
	proxy  *os.File
	digest chan string
	// tty mode: the socket pair over which the helper sends the pty master.
	ptyChild, ptyParent *os.File
	proxyFD, ptyFD      int
	relay               *ttyRelay
	cg                  *cgroup // the sandbox's cgroup, or none (cgroup_linux.go)
	leafFDs             []int   // the helper's descriptors of the v1 leaves
	memberSlack         uint64  // the spawning thread's timer slack before lendSlack
	// forked is the report of pid 1's fork message: from then on the
	// member may have run (supervise_linux.go).
	forked *policy.Report
}

func (l *launch) run() (*backend.Outcome, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return nil, err
	}
	defer stR.Close()
	if err := l.ptyPair(); err != nil {
		return nil, err
	}
	err = l.spawn(cfgR, stW)
	cfgR.Close()
	stW.Close()
	if l.ptyChild != nil {
		l.ptyChild.Close()
		defer l.ptyParent.Close()
	}
	if err != nil {
		cfgW.Close()
		return nil, err
	}
	if err := l.sendConfig(cfgW); err != nil {
		cfgW.Close()
		return nil, l.failed(err, stR)
	}
	if err := l.release(cfgW); err != nil {
		return nil, l.failed(err, stR)
	}
	if l.opt.afterRelease != nil {
		l.opt.afterRelease()
	}
	return l.supervise(bufio.NewReader(stR), l.opt.Signals)
}

// spawn starts the helper in new namespaces from a goroutine locked to its
// thread: Pdeathsig fires when the thread that started the child exits, so
// the thread must live as long as the helper.
func (l *launch) spawn(cfgR, stW *os.File) error {
	// Descriptors this process inherited must not leak into the sandbox:
	// the helper marks them close-on-exec first thing (helperRun) and fails
	// the launch if it cannot. Not here: a library must not change every
	// descriptor of its caller's process.
	uid, gid := os.Getuid(), os.Getgid()
	extra := []*os.File{cfgR, stW}
	if l.proxy != nil {
		l.proxyFD = fdFirstOptional + len(extra) - 2
		extra = append(extra, l.proxy)
	}
	if l.ptyChild != nil {
		l.ptyFD = fdFirstOptional + len(extra) - 2
		extra = append(extra, l.ptyChild)
	}
	extra, l.leafFDs = l.cg.passLeaves(extra, fdFirstOptional+len(extra)-2) // cgroup hook: v1
	flags := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
		unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP)
	if l.plan.Network.Mode == "host" {
		flags &^= unix.CLONE_NEWNET
	}
	attr := &syscall.SysProcAttr{
		// vfork: the id maps are written after the exec (idmap_linux.go).
		Cloneflags:  flags | unix.CLONE_VFORK | unix.CLONE_VM,
		AmbientCaps: ambientCaps(uid, l.plan.Network.Mode == "host"),
		Pdeathsig:   syscall.SIGKILL,
	}
	l.cg.cloneInto(attr) // cgroup hook: v2 clones the helper into its cgroup
	files := append([]*os.File{l.opt.Stdin, l.opt.Stdout, l.opt.Stderr}, extra...)
	started := make(chan error, 1)
	l.waited = make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l.memberSlack = lendSlack()
		defer returnSlack(l.memberSlack) // before the unlock: the thread goes back to the scheduler
		c, err := startChild(l.opt.Exe, []string{HelperArg0}, files, attr)
		if err != nil {
			started <- explainStart(err)
			return
		}
		l.child = c
		// Before Wait: until it is reaped, a pid 1 that died still holds
		// its pid, so the maps cannot reach another process's namespace.
		if err := l.mapIDs(uid, gid); err != nil {
			c.Kill()
			c.Wait()
			started <- err
			return
		}
		started <- nil
		l.waited <- c.Wait()
	}()
	return <-started
}

// sendConfig writes the helper's configuration as one frame
// (wire_proto.go); the pipe stays open for the release.
func (l *launch) sendConfig(w *os.File) error {
	cfg := helperConfig{ID: l.opt.ID, Plan: l.plan, Idents: l.held.idents, Access: l.plan.Access(true),
		ProxyFD: l.proxyFD, PtyFD: l.ptyFD, PolicyDigest: <-l.digest,
		PidsCgroup: l.cg != nil && l.cg.values["pids.max"] != "", CgroupLeaves: l.leafFDs,
		UserCounters: planCounterCaps(l.plan), IPCLimits: planIPCLimits(l.plan), MemberSlack: l.memberSlack}
	if len(l.leafFDs) > 0 {
		cfg.CgroupID = l.cg.id
	}
	if l.plan.TTY {
		cfg.Winsize, _ = sys.IoctlGetWinsize(int(l.opt.Stdin.Fd()), l.opt.Stdin.Name())
	}
	b, err := encodeConfig(&cfg)
	if err != nil {
		return fmt.Errorf("%w: the sandbox's configuration cannot be sent to its pid 1: %w; pass fewer or shorter arguments, variables, grants or mounts", policy.ErrCannotSandbox, err)
	}
	_, err = w.Write(b)
	return err
}

// release lets the helper start the member once the parent has checked
// that a helper cloned into its cgroup v2 is there (a v1 helper enters its
// cgroup itself). A helper that failed has closed its end: the write error
// is ignored and the status pipe says why.
func (l *launch) release(w *os.File) error {
	defer w.Close()
	if err := l.cg.place(l.child.pid); err != nil { // cgroup hook
		return err
	}
	w.Write([]byte{releaseByte})
	return nil
}

// failed ends a launch whose configuration or release failed. The helper
// may have died first (a setup step failed, entering its v1 cgroup
// included: the write then fails with EPIPE, or the v2 placement check
// finds no /proc entry); its own error on the
// status pipe names the step and the remedy, and wins over ours.
func (l *launch) failed(err error, status *os.File) error {
	l.child.Kill()
	werr := <-l.waited
	msgs := make(chan helperMsg, 16)
	go readMsgs(bufio.NewReader(status), msgs)
	for m := range msgs {
		if m.Kind == "error" {
			return helperError(m)
		}
	}
	// pid 1 said nothing: it ended before its setup could report (killed
	// from outside, or out of memory or threads while its runtime started).
	how := "it ended"
	if werr != nil {
		how = werr.Error()
	}
	return fmt.Errorf("%w: the sandbox's pid 1 ended before it took its configuration (%s); nothing ran; "+
		"if this repeats, check the user's process and memory limits (`ulimit -u`, `ulimit -v`) and the kernel log: %w",
		policy.ErrCannotSandbox, how, err)
}

func (l *launch) kill() {
	l.child.Kill()
	<-l.waited
}

// ptyPair creates the socket pair for the pty handover in tty mode.
func (l *launch) ptyPair() error {
	if !l.plan.TTY {
		return nil
	}
	fds, err := sys.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	l.ptyParent, l.ptyChild = os.NewFile(uintptr(fds[0]), "pty"), os.NewFile(uintptr(fds[1]), "pty")
	return nil
}

// procGID is the group that may see every process in the sandbox's /proc
// (its hidepid gid= option). hidepid exempts members of that group, and it
// defaults to 0, which a sandbox run as root is in; so for root the helper
// maps one more group, nobody's, and names it instead.
const procGID = 65534

func gidMappings(gid int) []syscall.SysProcIDMap {
	m := []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	if gid == 0 {
		m = append(m, syscall.SysProcIDMap{ContainerID: procGID, HostID: procGID, Size: 1})
	}
	return m
}
