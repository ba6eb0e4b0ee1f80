package nsjail

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// memberIO are the member's standard streams and terminal settings.
type memberIO struct {
	files []*os.File // stdin, stdout, stderr
	ctty  bool       // files[0] is the pty slave: make it the controlling terminal
}

// startMember locks a fresh goroutine to its OS thread, drops every
// privilege and applies the kernel layers on that thread only, verifies
// them, and forks the member from it. The goroutine returns without
// unlocking, so the Go runtime discards the restricted thread: the rest of
// pid 1 (reaper, bridge) never runs under the member's restrictions.
func startMember(cfg *helperConfig, rep *policy.Report, mio memberIO) (*os.Process, error) {
	type result struct {
		p   *os.Process
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		p, err := restrictAndExec(cfg, rep, mio)
		ch <- result{p, err}
	}()
	r := <-ch
	return r.p, r.err
}

func restrictAndExec(cfg *helperConfig, rep *policy.Report, mio memberIO) (*os.Process, error) {
	plan := cfg.Plan
	t := time.Now()
	if err := applyLayers(cfg, rep); err != nil {
		return nil, err
	}
	rep.PhasesMS["layers"] = ms(time.Since(t))
	if err := verify(plan, rep); err != nil {
		return nil, err
	}
	path, err := lookPath(plan.Command[0], plan.Env, plan.Cwd)
	if err != nil {
		return nil, err
	}
	env := append(append(append([]string{}, plan.Env...), plan.AccessVars(cfg.Access)...), "ACBOX_ID="+cfg.ID)
	attr := &os.ProcAttr{
		Dir: plan.Cwd, Env: env, Files: mio.files,
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: mio.ctty, Ctty: 0},
	}
	t = time.Now()
	defer func() { rep.PhasesMS["exec"] = ms(time.Since(t)) }()
	var p *os.Process
	err = withDataLimit(uint64(plan.Limits.Memory), func() (err error) {
		p, err = os.StartProcess(path, plan.Command, attr)
		return err
	})
	if err != nil {
		if p != nil { // started, but pid 1 could not restore its own limit
			p.Kill()
			return nil, &stepError{step: "exec " + plan.Command[0], err: err}
		}
		return nil, execFailed(plan.Command[0], path, err)
	}
	return p, nil
}

// execFailed names why the member's command could not be executed; a
// failure that is not the command's (ENOMEM, EAGAIN) stays the sandbox's.
func execFailed(cmd, path string, err error) error {
	class := policy.ExecClass(err)
	if class == "" {
		return &stepError{step: "exec " + cmd, err: err}
	}
	var errno syscall.Errno
	why := err.Error()
	if errors.As(err, &errno) {
		why = errno.Error()
	}
	detail := path + ": " + why
	if class == policy.ExecNotFound {
		// lookPath found the file: what is missing is its interpreter
		// (#!) or its dynamic loader.
		detail = path + " exists, but its interpreter or dynamic loader does not"
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
	return "", &policy.ExecError{Command: cmd, Class: policy.ExecNotFound, Detail: "PATH=" + path}
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
