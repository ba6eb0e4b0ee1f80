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
// user: a child of pid 1 (this binary, argv[0] ipcChildArg0) is cloned into
// both, is uid 0 there, writes the caps through the descriptor of the new
// proc's sys/kernel, and waits; pid 1 opens that namespace and the
// member's thread joins it before it drops its capabilities (setns needs
// CAP_SYS_ADMIN in the namespace's owner, which pid 1 holds as the owner's
// creator's uid, and in its own user namespace, which it holds until the
// drop). The member, same uid, owns that user namespace too, so it holds
// every capability over the IPC namespace's objects (all its own anyway);
// what would raise a limit does not help it: the limits are behind the
// read-only /proc/sys, and a queue larger than msgmnb needs
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

// makeIPCNamespace runs the child with caps and keeps its namespace
// (r.ipcNS, or the reason in r.ipcNSErr). It runs right after the new
// /proc is mounted: pid 1 is still dumpable (its child is visible to it
// there) and no mount covers its root yet (with a home at "/" a later
// clone is refused, EPERM, as from a chroot). The child's id maps are
// written through that /proc, where its pid is; it waits for them.
func (r *rootfs) makeIPCNamespace(caps []ipcLimit) {
	ns, err := r.ipcChild(caps)
	r.ipcNS, r.ipcNSErr = ns, err
	if err != nil {
		r.ipcNSErr = fmt.Errorf("a user's pid 1 writes them in an IPC namespace of its own, which failed: %w", err)
	}
}

func (r *rootfs) ipcChild(caps []ipcLimit) (ipcNamespace, error) {
	none := ipcNamespace{fd: -1}
	if r.kernelSysctlErr != nil || r.kernelSysctl <= 0 {
		return none, fmt.Errorf("pid 1 holds no descriptor of /proc/sys/kernel")
	}
	var args []string
	for _, c := range caps {
		if c.Cap == "" {
			return none, fmt.Errorf("the parent could not read or parse the host's kernel.%s", c.Name)
		}
		args = append(args, c.Name+"="+c.Cap)
	}
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
	dup, err := unix.Dup(r.kernelSysctl) // the child's fd 3; pid 1 keeps its own
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
		sys.Close(c.pidfd)
	}()
	pid := "proc/" + strconv.Itoa(c.pid) + "/"
	for _, m := range [...]struct{ file, value string }{
		{"setgroups", "deny"}, {"uid_map", fmt.Sprintf("0 %d 1\n", os.Geteuid())}, {"gid_map", fmt.Sprintf("0 %d 1\n", os.Getegid())},
	} {
		if err := r.writeProc(pid+m.file, m.value); err != nil {
			return none, err
		}
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
	fd, err := sys.Openat(r.root, pid+"ns/ipc", unix.O_RDONLY|unix.O_CLOEXEC, 0) // a magic link: followed
	if err != nil {
		return none, fmt.Errorf("opening its namespace: %w", err)
	}
	return ipcNamespace{fd: fd}, nil
}

// writeProc writes value to a file beneath the new root (its /proc).
func (r *rootfs) writeProc(path, value string) error {
	fd, err := sys.Openat(r.root, path, unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("write /%s: %w", path, err)
	}
	defer sys.Close(fd)
	if _, err := sys.Write(fd, "/"+path, []byte(value)); err != nil {
		return fmt.Errorf("write %q to /%s: %w", value, path, err)
	}
	return nil
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
