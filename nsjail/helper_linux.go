package nsjail

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// IsHelper reports whether this process is a sandbox's pid 1, started by
// Launch. Both the argv[0] marker and pid 1 are required, so no command
// line or environment a member controls can enter helper mode.
func IsHelper() bool {
	return filepath.Base(os.Args[0]) == HelperArg0 && os.Getpid() == 1
}

// In the sandbox's pid 1 the main goroutine stays on the main thread for
// good, so the member's restricted thread is never the main thread: Go
// parks (does not end) a main thread whose locked goroutine exits, and the
// main thread is the thread group leader, whose credentials decide kill()
// and ptrace checks against pid 1. A restricted leader would put pid 1 in
// the member's Landlock domain, and the member could signal it.
func init() {
	if IsHelper() {
		raiseSlack()
		runtime.LockOSThread()
	}
}

// HelperMain runs the sandbox's pid 1 and never returns.
func HelperMain() {
	status := os.NewFile(fdStatus, "status")
	code, err := helperRun(status)
	if err != nil {
		msg := helperMsg{Kind: "error", Error: err.Error()}
		var se *stepError
		if errors.As(err, &se) {
			msg.Step = se.step
		}
		var errno unix.Errno
		if errors.As(err, &errno) {
			msg.Errno = unix.ErrnoName(errno)
		}
		errors.As(err, &msg.Exec)
		status.Write(encodeMsg(msg))
		os.Exit(policy.ExitCannotSandbox)
	}
	os.Exit(code)
}

func helperRun(status *os.File) (int, error) {
	start := time.Now()
	// Descriptors inherited from the parent must not reach the member. This
	// is the only place that does it: pid 1 is a process of its own, about
	// to exec the member (the launching library leaves its caller's
	// descriptors alone). Without close_range (Linux 5.11) the launch fails.
	if err := sys.CloseOnExecFrom(3); err != nil {
		return 0, &stepError{step: "close_range", err: fmt.Errorf("marking inherited descriptors close-on-exec (needs Linux 5.11 or later): %w", err)}
	}
	cfgPipe := bufio.NewReader(os.NewFile(fdConfig, "config"))
	cfg, err := readConfig(cfgPipe)
	if err != nil {
		return 0, err
	}
	if cfg.MemberSlack != 0 {
		memberSlack = uintptr(cfg.MemberSlack) // lent by the parent (lendSlack)
	}
	if err := enterCgroups(cfg.CgroupLeaves, cfg.CgroupID); err != nil {
		return 0, err
	}
	rep := &policy.Report{ID: cfg.ID, Backend: "native", PhasesMS: map[string]float64{}, PolicyDigest: cfg.PolicyDigest}
	sb := &sandbox{cfg: cfg, rep: rep, status: status, release: cfgPipe}
	if err := sb.setup(); err != nil {
		return 0, err
	}
	rep.PhasesMS["helper_setup"] = ms(time.Since(start))
	return sb.run()
}

// readConfig reads the configuration's one frame (wire_proto.go). A
// frame of another protocol version is refused, as is one that ends early
// or carries bytes after its last field: the parent and pid 1 must be the
// same build (a pid 1 that skipped cgroup_leaves would run the member
// outside the cgroup the report names).
func readConfig(r *bufio.Reader) (*helperConfig, error) {
	var cfg *helperConfig
	b, err := readFrame(r, frameConfig, "config")
	if errors.Is(err, io.EOF) {
		err = errors.New("the parent closed the config pipe without sending the configuration")
	}
	if err == nil {
		cfg, err = decodeConfig(b)
	}
	if err == nil && (cfg.Plan == nil || len(cfg.Plan.Command) == 0) {
		err = errors.New("no command")
	}
	if err != nil {
		return nil, &stepError{step: "read config", err: fmt.Errorf("bad helper config: %w", err)}
	}
	return cfg, nil
}

// sandbox is the state of pid 1 after setup.
type sandbox struct {
	cfg    *helperConfig
	rep    *policy.Report
	status *os.File
	rfs    *rootfs
	// release is the rest of the config pipe: one byte once the parent has
	// checked pid 1's cgroup v2 placement (see launch.release).
	release *bufio.Reader
	member  int // the member's pid
	mio     memberIO
}

func (s *sandbox) setup() error {
	t := time.Now()
	s.rfs = &rootfs{cfg: s.cfg}
	if err := s.rfs.build(); err != nil {
		return err
	}
	s.rep.Mounts = s.rfs.records
	s.rep.Controls = append(s.rep.Controls, s.rfs.maskControl())
	s.rep.PhasesMS["mounts_and_pivot"] = ms(time.Since(t))
	s.rep.Namespaces = namespaceInodes()
	if err := sys.Sethostname(s.cfg.Plan.Hostname); err != nil {
		return &stepError{step: "sethostname", err: err}
	}
	t = time.Now()
	if err := s.setupNetwork(); err != nil {
		return err
	}
	s.rep.PhasesMS["network"] = ms(time.Since(t))
	s.mio = memberIO{files: []*os.File{os.Stdin, os.Stdout, os.Stderr}}
	return s.setupTTY()
}

// namespaceInodes records the inode of each namespace the sandbox is in.
func namespaceInodes() map[string]uint64 {
	out := map[string]uint64{}
	for _, ns := range []string{"user", "mnt", "pid", "net", "ipc", "uts", "cgroup"} {
		var st unix.Stat_t
		if sys.Stat("/proc/self/ns/"+ns, &st) == nil {
			out[ns] = st.Ino
		}
	}
	return out
}

// awaitRelease blocks until the parent releases the member's start.
func (s *sandbox) awaitRelease() error {
	b, err := s.release.ReadByte()
	if err != nil || b != releaseByte {
		return &stepError{step: "release", err: fmt.Errorf("the parent did not release the start (%w)", err)}
	}
	return nil
}
