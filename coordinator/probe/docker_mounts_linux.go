package probe

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dockerOwnMounts are what docker mounts in every container besides the
// plan: a sysfs at /sys (masked by acbox with an empty read-only tmpfs; the
// sysfs and its cgroup mounts stay beneath it in the mount table) and the
// daemon's /etc/hosts, /etc/hostname and /etc/resolv.conf (the last masked
// with /dev/null). docs/backends.md, "Docker's own mounts".
var dockerOwnMounts = []string{"/sys", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf"}

func mountinfoDocker(e *Env) Outcome {
	if len(e.Mounts) == 0 {
		return skipf("the runner named no plan mounts")
	}
	n, extra, err := mountsOutside(append(append([]string{"/proc", "/dev"}, e.Mounts...), dockerOwnMounts...))
	if err != nil {
		return errorf("%v", err)
	}
	outs := []Outcome{emptyReadonlyTmpfs("/sys"), emptyFile("/etc/resolv.conf"), loopbackHosts()}
	if len(extra) > 0 {
		outs = append(outs, failf("mount points outside the plan and docker's own: %s", strings.Join(extra, " ")))
	} else {
		outs = append(outs, passf("%d mounts, all from the plan or docker's own", n))
	}
	return worst(outs...)
}

func devicesDocker(*Env) Outcome {
	if _, err := os.Lstat("/dev/mqueue"); err != nil {
		return devicesAllowing()
	}
	return worst(emptyReadonlyTmpfs("/dev/mqueue"), devicesAllowing("mqueue"))
}

// emptyReadonlyTmpfs passes when dir is what runc makes of a masked
// directory: an empty tmpfs mounted read-only.
func emptyReadonlyTmpfs(dir string) Outcome {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return failf("statfs %s: %s", dir, short(err))
	}
	ents, err := os.ReadDir(dir)
	switch {
	case st.Type != unix.TMPFS_MAGIC:
		return failf("%s is not masked (filesystem type %#x)", dir, st.Type)
	case st.Flags&unix.ST_RDONLY == 0:
		return failf("%s is a writable tmpfs", dir)
	case err != nil || len(ents) > 0:
		return failf("%s is not empty (%d entries, %v)", dir, len(ents), err)
	}
	return passf("%s is masked: an empty read-only tmpfs", dir)
}

func emptyFile(p string) Outcome {
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return failf("read %s: %s", p, short(err))
	}
	if len(b) > 0 {
		return failf("%s holds %d bytes (the host's resolver configuration)", p, len(b))
	}
	return passf("%s is empty", p)
}

// loopbackHosts passes when /etc/hosts names loopback and IPv6 multicast
// addresses only (docker's file under network none).
func loopbackHosts() Outcome {
	b, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return passf("/etc/hosts: %s", short(err))
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if a := f[0]; !strings.HasPrefix(a, "127.") && a != "::1" && !strings.HasPrefix(a, "fe00::") && !strings.HasPrefix(a, "ff0") {
			return failf("/etc/hosts names a non-loopback address: %q", l)
		}
	}
	return passf("/etc/hosts names loopback addresses only")
}

// initFdList: listing acbox's init's fd directory fails; as uid 0 (no
// user namespace under docker) the non-dumpable init's /proc entries belong
// to uid 0, so the member may list the numbers, and passes only when none
// of them can be read or opened.
func initFdList(e *Env) Outcome {
	pid, err := acboxInit()
	if err != nil {
		return errorf("%v", err)
	}
	p := "/proc/" + strconv.Itoa(pid) + "/fd"
	err = readDir(p)
	if err != nil || os.Getuid() != 0 {
		return worst(expectErrno("listing acbox's init's descriptors "+p, err, unix.EACCES, unix.EPERM, unix.ENOENT), pid1NoMore())
	}
	o := initFdOpen(e)
	if o.Result == Pass {
		o.Detail = "as uid 0 the numbers of " + p + " can be listed (a non-dumpable task's entries belong to uid 0); " + o.Detail
	}
	return o
}
