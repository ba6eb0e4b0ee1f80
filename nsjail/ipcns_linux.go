package nsjail

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// A user's sandbox maps the user's uid alone, and the kernel lets only the
// IPC namespace's uid 0 write its limits (ipc_permissions compares the
// effective uid). So pid 1 of a user's sandbox makes a second IPC
// namespace, owned by a user namespace of its own that maps uid 0 to the
// user, from a child cloned into both (ipcns_traced_linux.go: the child
// is stopped at its exec and pid 1 writes the caps itself; this file
// holds what that shares with the fallback, where the child runs this
// binary, argv[0] ipcChildArg0, and writes them). The member's thread
// joins that namespace before it drops its capabilities (setns needs
// CAP_SYS_ADMIN in the namespace's owner, which pid 1 holds as the
// owner's creator's uid, and in its own user namespace, which it holds
// until the drop). The member, same uid, owns that user namespace too,
// so it holds every capability over the IPC namespace's objects (all its
// own anyway); what would raise a limit does not help it: the limits are
// behind the read-only /proc/sys, and a queue larger than msgmnb needs
// CAP_SYS_RESOURCE in the initial user namespace (capable(), not
// ns_capable()); setns and unshare are refused by seccomp.

// ipcChildArg0 is argv[0] of that child.
const ipcChildArg0 = "acbox-ipcns"

// IsIPCChild reports whether this process is pid 1's IPC child (argv[0]
// and a parent that is pid 1; a member that ran this binary so could do
// nothing through it that it could not do itself).
func IsIPCChild() bool {
	return filepath.Base(os.Args[0]) == ipcChildArg0 && os.Getppid() == 1 && os.Getpid() != 1
}

// IPCChildMain writes each name=value of its arguments beneath descriptor
// 3 (the kept sys/kernel), prints "ok" or the first error on stdout, and
// waits for its stdin to end: the namespace lives while it does.
func IPCChildMain() {
	in := bufio.NewReader(os.Stdin)
	if l, _ := in.ReadString('\n'); l != "go\n" { // pid 1 writes the id maps first
		os.Exit(1)
	}
	out := "ok"
	for _, a := range os.Args[1:] {
		name, value, _ := strings.Cut(a, "=")
		if err := writeSysctlAt(3, kernelSysctlDir, name, value); err != nil {
			out = strings.ReplaceAll(err.Error(), "\n", " ")
			break
		}
	}
	fmt.Println(out)
	in.ReadByte()
	os.Exit(0)
}

// writeSysctlAt writes value to dir's name beneath the O_PATH descriptor
// fd and checks that it reads back (fields compared: kernel.sem reads back
// separated by tabs).
func writeSysctlAt(dirfd int, dir, name, value string) error {
	path := dir + name
	fd, err := sys.Openat(dirfd, name, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer sys.Close(fd)
	got, err := writeBack(fd, path, value)
	if err == nil && strings.Join(strings.Fields(got), " ") != value {
		err = fmt.Errorf("%s reads %q after writing %q", path, got, value)
	}
	return err
}

// ipcNamespace is the IPC namespace pid 1 made for a user's sandbox,
// with its limits written, open for the member's thread to join.
type ipcNamespace struct {
	fd int // /proc/<child>/ns/ipc; none at 0 or below (0 is stdin, never this)
}

// ipcProc is what making the namespace needs of the new /proc: an O_PATH
// descriptor of it (where the child's pid is; the maker closes it) and
// the kept one of its sys/kernel (rootfs owns it). -1 where there is none.
type ipcProc struct{ proc, kernel int }

// ipcArgs are the caps as name=value, or why one is missing.
func ipcArgs(caps []ipcLimit) ([]string, error) {
	var args []string
	for _, c := range caps {
		if c.Cap == "" {
			return nil, fmt.Errorf("the parent could not read or parse the host's kernel.%s", c.Name)
		}
		args = append(args, c.Name+"="+c.Cap)
	}
	return args, nil
}

// check says why p cannot serve.
func (p ipcProc) check() error {
	if p.proc < 0 {
		return errors.New("the sandbox's /proc was not mounted")
	}
	if p.kernel <= 0 {
		return errors.New("pid 1 holds no descriptor of /proc/sys/kernel")
	}
	return nil
}

// writeIDMaps maps uid and gid 0 of the child's user namespace to pid 1's
// own (the user's), through the new /proc where the child's pid is.
func (p ipcProc) writeIDMaps(pid int) error {
	for _, m := range [...]struct{ file, value string }{
		{"setgroups", "deny"}, {"uid_map", fmt.Sprintf("0 %d 1\n", unix.Geteuid())}, {"gid_map", fmt.Sprintf("0 %d 1\n", unix.Getegid())},
	} {
		if err := p.write(strconv.Itoa(pid)+"/"+m.file, m.value); err != nil {
			return err
		}
	}
	return nil
}

// write writes value to a file beneath the new /proc.
func (p ipcProc) write(path, value string) error {
	fd, err := sys.Openat(p.proc, path, unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("write /proc/%s: %w", path, err)
	}
	defer sys.Close(fd)
	if _, err := sys.Write(fd, "/proc/"+path, []byte(value)); err != nil {
		return fmt.Errorf("write %q to /proc/%s: %w", value, path, err)
	}
	return nil
}

// openNS opens the child's IPC namespace (ns/ipc, a magic link: followed).
func (p ipcProc) openNS(pid int) (ipcNamespace, error) {
	fd, err := sys.Openat(p.proc, strconv.Itoa(pid)+"/ns/ipc", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ipcNamespace{fd: -1}, fmt.Errorf("opening its namespace: %w", err)
	}
	return ipcNamespace{fd: fd}, nil
}

// execIPCChild is the way without tracing (Yama's ptrace_scope 3 refuses
// it): the child runs this binary (IPCChildMain), writes the caps itself
// and waits until pid 1 holds its namespace. It costs a Go runtime start
// (about 3 ms of a user launch).
func execIPCChild(p ipcProc, args []string) (ipcNamespace, error) {
	none := ipcNamespace{fd: -1}
	inR, inW, err := os.Pipe()
	if err != nil {
		return none, err
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		return none, err
	}
	defer outR.Close()
	dup, err := unix.Dup(p.kernel) // the child's fd 3; pid 1 keeps its own
	if err != nil {
		inR.Close()
		outW.Close()
		return none, err
	}
	dir := os.NewFile(uintptr(dup), kernelSysctlDir)
	defer dir.Close()
	attr := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWIPC, Pdeathsig: syscall.SIGKILL}
	c, err := startChild("/proc/self/exe", append([]string{ipcChildArg0}, args...), []*os.File{inR, outW, os.Stderr, dir}, attr)
	inR.Close()
	outW.Close()
	if err != nil {
		return none, err
	}
	defer func() {
		inW.Close()
		var ws unix.WaitStatus
		sys.Wait4(c.pid, &ws, 0, nil)
		c.release()
	}()
	if err := p.writeIDMaps(c.pid); err != nil {
		return none, err
	}
	if _, err := inW.Write([]byte("go\n")); err != nil {
		return none, err
	}
	line, _ := bufio.NewReader(outR).ReadString('\n')
	if line = strings.TrimSpace(line); line != "ok" {
		if line == "" {
			line = "it ended without an answer"
		}
		return none, errors.New(line)
	}
	return p.openNS(c.pid)
}

// join moves the calling thread (the member's, before it drops its
// capabilities) into the namespace, and closes it.
func (n *ipcNamespace) join() error {
	if n.fd <= 0 {
		return nil
	}
	defer n.close()
	if err := unix.Setns(n.fd, unix.CLONE_NEWIPC); err != nil {
		return &stepError{step: "join the sandbox's capped IPC namespace", err: err}
	}
	return nil
}

func (n *ipcNamespace) close() {
	if n.fd > 0 {
		sys.Close(n.fd)
		n.fd = -1
	}
}
