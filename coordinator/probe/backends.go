package probe

// Backend names, as `acbox selftest --backend` and [Env.Backend] take them.
const (
	Native = "native"
	Docker = "docker"
)

// Difference is a probe whose expectation under the docker backend is not
// the native one, because the design says the backends differ there.
type Difference struct {
	ID     string
	Design string // which design difference: one of the Why* constants
	Docker string // what the docker variant checks instead
}

// The design differences, as coordinator/docker's package doc states them;
// docs/backends.md explains each.
const (
	WhyInit     = "pid 1 is docker's init"
	WhyLandlock = "no Landlock in the docker backend"
	WhyUserns   = "no user namespace (rootful daemon)"
	WhyMounts   = "docker's own mounts"
)

// Differences is every explained difference between the backends, in the
// order of docs/backends.md, which mirrors this table (a test holds them
// equal). A probe listed here has a Docker variant; a probe that passes on
// one backend and fails on the other while not listed here is a finding.
var Differences = []Difference{
	{"proc.pid1-environ", WhyInit, "pid 1 holds no more than the member; acbox's init's environ is unreadable"},
	{"proc.pid1-fd", WhyInit + "; " + WhyUserns, "pid 1 holds no more than the member; acbox's init's fd directory cannot be listed, or as uid 0 shows numbers only"},
	{"proc.pid1-fd-open", WhyInit, "pid 1 holds no more than the member; none of acbox's init's descriptors can be read through /proc"},
	{"proc.pid1-mem", WhyInit, "pid 1 holds no more than the member; acbox's init's memory cannot be opened"},
	{"proc.pid1-root", WhyInit, "pid 1 holds no more than the member; acbox's init's root cannot be listed"},
	{"proc.ptrace-pid1", WhyInit, "pid 1 holds no more than the member; ptrace of acbox's init fails with EPERM"},
	{"proc.signal-pid1", WhyInit + "; " + WhyLandlock, "pid 1, which the member may signal, holds no more than the member"},
	{"proc.kill-pid1", WhyInit, "kill(1, SIGKILL) does not end the sandbox (destructive, --all only)"},
	{"kernel.landlock-domain", WhyLandlock, "recorded as info, not a verdict"},
	{"fs.devices", WhyMounts, "as native, and /dev/mqueue is an empty read-only tmpfs (masked)"},
	{"fs.metadata-non-grant", WhyMounts, "as native, except runc's binds of the container's own /dev/null over masked files (/etc/resolv.conf), an inode of its private /dev tmpfs"},
	{"info.mountinfo", WhyMounts, "also docker's /sys (masked), /etc/hosts, /etc/hostname and /etc/resolv.conf (masked, empty)"},
	{"info.uid-map", WhyUserns, "uid is the caller's, no group but the caller's own gid, uid_map is the initial namespace's"},
	{"term.new-session", WhyInit, "the member's session is led by pid 1, inside the container"},
	{"res.data-limit-raise", WhyInit, "RLIMIT_DATA is set and finite; acbox's init sets it under the container's profile, so the member may raise it, and the container's memory cgroup is the cap"},
	{"res.stack-outside-data", WhyInit, "mmap with MAP_GROWSDOWN fails with EPERM as native; RLIMIT_STACK is docker's, not soft = hard, and the container's memory cgroup is the cap"},
}

// Explained reports whether id is listed in Differences.
func Explained(id string) bool {
	for _, d := range Differences {
		if d.ID == id {
			return true
		}
	}
	return false
}
