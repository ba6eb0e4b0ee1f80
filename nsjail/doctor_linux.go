package nsjail

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/landlock"
)

// The native backend's host requirements, one by one, for `acbox doctor`.
// None touches the real root; each failure names its remedy.

// HostChecks implements backend.HostChecker.
func (Backend) HostChecks() []backend.HostCheck {
	var out []backend.HostCheck
	for _, c := range []struct {
		name string
		f    func() check
	}{{"user namespaces", checkUserns}, {"apparmor userns", checkAppArmor}, {"landlock", checkLandlock},
		{"seccomp", checkSeccomp}, {"proc", checkProc}, {"pty", checkPty}, {"cgroup delegation", checkCgroup}} {
		out = append(out, backend.HostCheck{Name: c.name, Run: c.f})
	}
	return out
}

type check = backend.Check

func sysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func checkUserns() check {
	c := check{Name: "user namespaces", OK: true}
	if v := sysctl("user.max_user_namespaces"); v == "0" {
		c.OK, c.Detail, c.Remedy = false, "user.max_user_namespaces=0", "sudo sysctl -w user.max_user_namespaces=15000 (and persist it in /etc/sysctl.d), or use --backend docker"
		return c
	}
	if v := sysctl("kernel.unprivileged_userns_clone"); v == "0" {
		c.OK, c.Detail, c.Remedy = false, "kernel.unprivileged_userns_clone=0", "sudo sysctl -w kernel.unprivileged_userns_clone=1, or use --backend docker"
		return c
	}
	if err := tryUserns(); err != nil {
		c.OK, c.Detail = false, "creating a user namespace with a uid map failed: "+err.Error()
		c.Remedy = "inside a container or sandbox, namespaces are usually refused (run acbox on the host, or use --backend docker); " +
			"on the host see the AppArmor check below and user.max_user_namespaces"
		return c
	}
	c.Detail = "created one with a uid map (user.max_user_namespaces=" + sysctl("user.max_user_namespaces") + ")"
	return c
}

// tryUserns runs true in a new user and mount namespace with this user
// mapped to itself, as the sandbox's clone does.
func tryUserns() error {
	t, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	cmd := exec.Command(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}}
	return cmd.Run()
}

func checkAppArmor() check {
	c := check{Name: "apparmor userns", OK: true, Detail: "no AppArmor restriction on user namespaces"}
	if sysctl("kernel.apparmor_restrict_unprivileged_userns") != "1" {
		return c
	}
	exe, _ := os.Executable()
	c.Detail = "kernel.apparmor_restrict_unprivileged_userns=1"
	if os.Geteuid() == 0 {
		return c // root is not restricted
	}
	c.OK = false
	c.Remedy = "install this profile as /etc/apparmor.d/acbox and run `sudo apparmor_parser -r /etc/apparmor.d/acbox`:\n" +
		"abi <abi/4.0>,\ninclude <tunables/global>\nprofile acbox " + exe + " flags=(unconfined) {\n  userns,\n  include if exists <local/acbox>\n}"
	return c
}

func checkLandlock() check {
	c := check{Name: "landlock", OK: true}
	abi, err := landlock.ABI()
	if err != nil {
		c.OK, c.Detail = false, err.Error()
		c.Remedy = "boot a kernel with Landlock enabled (lsm=landlock,... on the kernel command line), pass --best-effort to run without it, or use --backend docker"
		return c
	}
	c.Detail = fmt.Sprintf("ABI %d", abi)
	if abi < 6 {
		c.OK, c.Remedy = false, "acbox needs Landlock ABI 6 (Linux 6.12) for signal and abstract-socket scoping; upgrade the kernel or pass --best-effort"
	}
	return c
}

func checkSeccomp() check {
	b, _ := os.ReadFile("/proc/self/status")
	if strings.Contains(string(b), "\nSeccomp:") {
		return check{Name: "seccomp", OK: true, Detail: "filter mode available"}
	}
	return check{Name: "seccomp", Detail: "this kernel has no seccomp", Remedy: "use a kernel built with CONFIG_SECCOMP_FILTER, or --backend docker"}
}

// checkProc finds mounts over /proc entries (Docker's default masking), on
// which mounting a fresh proc fails with EPERM.
func checkProc() check {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return check{Name: "proc", Detail: err.Error(), Remedy: "mount /proc"}
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], "/proc/") {
			return check{Name: "proc", Detail: "something is mounted over " + f[4] + " (a default Docker container?)",
				Remedy: "run the container with --security-opt systempaths=unconfined (and --security-opt seccomp=unconfined), or use acbox's --backend docker on the host"}
		}
	}
	return check{Name: "proc", OK: true, Detail: "no over-mounts"}
}

func checkPty() check {
	f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return check{Name: "pty", Detail: err.Error(), Remedy: "the host needs devpts and /dev/ptmx for --tty; run without --tty"}
	}
	f.Close()
	return check{Name: "pty", OK: true, Detail: "/dev/ptmx opens"}
}

// checkCgroup makes and removes a real sandbox cgroup. Without one, limits
// are rlimits; for root that leaves no process cap, which refuses launches.
func checkCgroup() check {
	c := check{Name: "cgroup delegation", OK: true}
	mode, why := ProbeCgroup()
	if mode != "" {
		c.Detail = mode + ": memory (no swap) and pids capped for the whole sandbox"
		return c
	}
	c.Detail = "no writable cgroup (" + why + "): limits are per-process rlimits, reported as such"
	if os.Geteuid() == 0 {
		c.OK = false
		c.Remedy = "as root, RLIMIT_NPROC does not apply, so launches are refused without a pids cgroup: mount a writable cgroup hierarchy, run acbox as an unprivileged user, or pass --best-effort"
	}
	return c
}
