package nsjail

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// memberIO are the member's standard streams and terminal settings.
type memberIO struct {
	files []*os.File // stdin, stdout, stderr
	ctty  bool       // files[0] is the pty slave: make it the controlling terminal
}

// fds are the member's standard streams as descriptors (in blocking mode).
func (m memberIO) fds() []uintptr {
	out := make([]uintptr, len(m.files))
	for i, f := range m.files {
		out[i] = f.Fd()
	}
	return out
}

// startMember locks a fresh goroutine to its OS thread, drops every
// privilege and applies the kernel layers on that thread only, verifies
// them, and forks the member from it. The goroutine returns without
// unlocking, so the Go runtime discards the restricted thread: the rest of
// pid 1 (reaper, bridge) never runs under the member's restrictions.
//
// The goroutine first has the forwarded signals caught on sigs: for each
// signal, signal.Notify waits for the runtime's signal-mask thread, and
// from the main goroutine, which stays on the main thread, each of those
// waits would cost two more thread hand-overs.
//
// The restricted thread lowers pid 1's RLIMIT_DATA to the member's limit
// right before it loads the filter (which refuses setting it) and forks;
// this goroutine, on an unfiltered thread, restores pid 1's own as soon as
// the member is forked.
//
// f sends the fork message right before the fork (restrictAndExec), and
// has the member forked with the OOM killer's preference (oomadj_linux.go).
func startMember(cfg *helperConfig, rep *policy.Report, mio memberIO, sigs chan<- os.Signal, f *forking, ipc *ipcNamespace) (int, error) {
	type result struct {
		pid int
		err error
	}
	var own unix.Rlimit
	if err := sys.Getrlimit(unix.RLIMIT_DATA, &own); err != nil {
		return 0, &stepError{step: "getrlimit data", err: err}
	}
	ch := make(chan result, 1)
	go func() {
		signal.Notify(sigs, forwarded...)
		runtime.LockOSThread()
		pid, err := restrictAndExec(cfg, rep, mio, f, ipc)
		ch <- result{pid, err}
	}()
	r := <-ch
	if err := restoreData(own); err != nil {
		if r.pid != 0 { // started, but pid 1 could not restore its own limit
			sys.Kill(r.pid, syscall.SIGKILL)
		}
		if r.err == nil {
			return 0, err
		}
	}
	return r.pid, r.err
}

func restrictAndExec(cfg *helperConfig, rep *policy.Report, mio memberIO, f *forking, ipc *ipcNamespace) (int, error) {
	plan := cfg.Plan
	// Before the capabilities go: setns needs CAP_SYS_ADMIN.
	if err := ipc.join(); err != nil {
		return 0, err
	}
	if err := restoreSlack(); err != nil {
		return 0, &stepError{step: "timer slack", err: err}
	}
	t := time.Now()
	prog, err := applyLayers(cfg, rep)
	if err != nil {
		return 0, err
	}
	rep.PhasesMS["layers"] = ms(time.Since(t))
	if err := verify(plan, rep); err != nil {
		return 0, err
	}
	path, err := lookPath(plan.Command[0], plan.Env, plan.Cwd)
	if err != nil {
		return 0, err
	}
	env := append(append(append([]string{}, plan.Env...), plan.AccessVars(cfg.Access)...), "ACBOX_ID="+cfg.ID)
	// syscall.ForkExec, not os.StartProcess: the latter first probes for
	// pidfd support by forking a throwaway child, and pid 1 reaps by wait4.
	attr := &syscall.ProcAttr{
		Dir: plan.Cwd, Env: env, Files: mio.fds(),
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: mio.ctty, Ctty: 0},
	}
	if err := loadSeccomp(prog, plan.Limits.Memory, rep); err != nil {
		return 0, err
	}
	notify, err := loadListenGuard(rep)
	if err != nil {
		return 0, err
	}
	t = time.Now()
	defer func() { rep.PhasesMS["exec"] = ms(time.Since(t)) }()
	f.before(rep)
	pid, err := syscall.ForkExec(path, plan.Command, attr)
	f.after()
	if notify >= 0 {
		// A goroutine of its own, never this thread: this one is the
		// member's, and the Go runtime discards it when startMember's
		// goroutine returns. The descriptor is close-on-exec, so the
		// member never holds it; without a member, closing it is all.
		if err != nil {
			sys.Close(notify)
		} else {
			go superviseListen(notify, plan.Network.BindPorts)
		}
	}
	if err != nil {
		return 0, execFailed(plan.Command[0], path, &os.PathError{Op: "fork/exec", Path: path, Err: err})
	}
	return pid, nil
}

// execFailed names why the member's command could not be executed; a
// failure that is not the command's (ENOMEM, EAGAIN) stays the sandbox's.
func execFailed(cmd, path string, err error) error {
	class := policy.ExecClass(err)
	if class == "" {
		return &stepError{step: "exec " + policy.Quote(cmd), err: err}
	}
	var errno syscall.Errno
	why := err.Error()
	if errors.As(err, &errno) {
		why = errno.Error()
	}
	detail := policy.Quote(path) + ": " + why
	if class == policy.ExecNotFound {
		// lookPath found the file: what is missing is its interpreter
		// (#!) or its dynamic loader.
		detail = policy.Quote(path) + " exists, but its interpreter or dynamic loader does not"
	}
	return &policy.ExecError{Command: cmd, Class: class, Detail: detail}
}

// verify refuses the launch when a requested control is not enforced,
// unless the plan asked for best effort.
func verify(plan *policy.Plan, rep *policy.Report) error {
	short := rep.Shortfalls()
	if len(short) == 0 || plan.BestEffort {
		return nil
	}
	var parts []string
	for _, c := range short {
		parts = append(parts, c.Name+": "+c.Why)
	}
	return &stepError{step: "verify", err: errors.New(strings.Join(parts, "; ") + " (pass --best-effort to run without them)")}
}

// lookPath finds cmd on the member's PATH, inside the new root.
func lookPath(cmd string, env []string, cwd string) (string, error) {
	if strings.Contains(cmd, "/") {
		if !filepath.IsAbs(cmd) {
			cmd = filepath.Join(cwd, cmd)
		}
		return cmd, checkExecutable(cmd)
	}
	path := policy.DefaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	// As execvp(3): a file found but not executable is reported only when
	// no later directory holds an executable one.
	var denied error
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, cmd)
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if denied == nil && !errors.Is(err, policy.ErrNotFound) {
			denied = err
		}
	}
	if denied != nil {
		return "", denied
	}
	return "", &policy.ExecError{Command: cmd, Class: policy.ExecNotFound, Detail: "PATH=" + policy.Quote(path)}
}

// checkExecutable refuses what execve would: a missing file, a directory,
// a file without an execute bit. Landlock and the mount flags can still
// refuse the exec itself (execFailed).
func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		if class := policy.ExecClass(err); class != "" {
			var errno syscall.Errno
			why := err.Error()
			if errors.As(err, &errno) {
				why = errno.Error()
			}
			return &policy.ExecError{Command: p, Class: class, Detail: why}
		}
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return &policy.ExecError{Command: p, Class: policy.ExecDenied, Detail: "not an executable file"}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
