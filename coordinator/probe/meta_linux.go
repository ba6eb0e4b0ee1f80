package probe

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// fs.metadata-non-grant: Landlock covers no change of metadata, so only a
// read-only mount stops the member from changing a host file it owns
// through a bind: a root caller's /dev/null, the broker socket in the
// caller's state directory (nsjail/readonly_linux.go). The probe walks the
// mount table and, on every mount point that is neither under the write
// grant nor one of the sandbox's own file systems, sets the mode, owner
// and times it already has and an extended attribute; each must fail with
// EROFS, which the kernel returns before any permission check, so a
// read-write bind fails the probe even where the member does not own the
// file. On a read-write bind the first three change nothing but the
// ctime, and the attribute is removed again.

func metadataProbe() Probe {
	return Probe{ID: "fs.metadata-non-grant", Category: Filesystem,
		Source: "acbox design (2026-12-01: chmod and utime of the host's /dev/full and broker socket through read-write binds)",
		Expect: "chmod, chown, utimensat and setxattr fail with EROFS on every mount point outside the write grant and the sandbox's own file systems (device nodes, acbox's own binds, system directories, the read grant)",
		Run:    metadataNonGrant}
}

// mountPoint is one line of /proc/self/mountinfo.
type mountPoint struct {
	path, root, fstype, dev string
	rw                      bool
}

func metadataNonGrant(e *Env) Outcome { return metadataBinds(e, nil) }

// metadataDocker: as native, except the binds of the container's own
// /dev/null that runc makes over a masked file (/etc/resolv.conf, and
// /proc paths): read-write, but an inode on the container's private /dev
// tmpfs, not a host file.
func metadataDocker(e *Env) Outcome {
	mps, err := mountPoints()
	if err != nil {
		return errorf("%v", err)
	}
	dev := ""
	for _, m := range mps {
		if m.path == "/dev" {
			dev = m.dev
		}
	}
	return metadataBinds(e, func(m mountPoint) bool { return m.dev == dev && m.fstype == "tmpfs" })
}

func metadataBinds(e *Env, skip func(mountPoint) bool) Outcome {
	if e.Fixture == "" {
		return skipf("the runner named no write grant")
	}
	mps, err := mountPoints()
	if err != nil {
		return errorf("%v", err)
	}
	var outs []Outcome
	var named []string
	n := 0
	for _, m := range mps {
		if ownFS(m, e.Fixture) || (skip != nil && skip(m)) {
			continue
		}
		o, checked := metadataDenied(m.path)
		outs = append(outs, o)
		if checked {
			n++
			if underAny(m.path, nonEmpty("/dev", "/.acbox", e.ReadGrant)) {
				named = append(named, m.path)
			}
		}
	}
	if n == 0 {
		return errorf("no mount point to check in /proc/self/mountinfo")
	}
	o := worst(outs...)
	if o.Result == Pass {
		return passf("%d mount points refuse with EROFS, among them %s", n, strings.Join(named, " "))
	}
	return o
}

// ownFS: m is the member's to change, or the sandbox's own file system
// rather than a bind of a host file: under the write grant (pins
// included), /proc, a fresh devpts, or a read-write tmpfs shown from its
// root (the private /tmp, home and /dev/shm; a bind of a host tmpfs shows
// a directory below its root).
func ownFS(m mountPoint, write string) bool {
	switch {
	case underAny(m.path, []string{write, "/proc"}):
		return true
	case m.fstype == "devpts" || m.fstype == "proc":
		return true
	}
	return m.fstype == "tmpfs" && m.rw && m.root == "/"
}

// metadataDenied tries the four changes on path; checked is false when the
// path cannot be reached at all (beneath a mount that hides it, as docker's
// /sys/fs/cgroup beneath the masked /sys).
func metadataDenied(path string) (Outcome, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return infof("%s: %s", path, short(err)), false
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return Outcome{Result: Skip}, false
	}
	times := []unix.Timespec{st.Atim, st.Mtim}
	errs := []struct {
		op  string
		err error
	}{
		{"chmod", unix.Fchmodat(unix.AT_FDCWD, path, st.Mode&0o7777, 0)},
		{"chown", unix.Lchown(path, -1, -1)},
		{"utimensat", unix.UtimesNanoAt(unix.AT_FDCWD, path, times, unix.AT_SYMLINK_NOFOLLOW)},
		{"setxattr", setProbeXattr(path)},
	}
	var bad []string
	for i, x := range errs {
		if i == 0 && st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 && errors.Is(x.err, unix.EPERM) {
			continue // seccomp refuses every set-id mode first (coordinator/seccomp); the other three judge the mount
		}
		if !errors.Is(x.err, unix.EROFS) {
			bad = append(bad, fmt.Sprintf("%s %s", x.op, result(x.err)))
		}
	}
	if len(bad) > 0 {
		return failf("%s is not read-only: %s", path, strings.Join(bad, ", ")), true
	}
	return Outcome{Result: Pass}, true
}

func nonEmpty(ps ...string) []string {
	var out []string
	for _, p := range ps {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func setProbeXattr(path string) error {
	const name = "user.acbox-probe"
	err := unix.Lsetxattr(path, name, []byte("x"), 0)
	if err == nil {
		unix.Lremovexattr(path, name)
	}
	return err
}

func result(err error) string {
	if err == nil {
		return "succeeded"
	}
	return short(err)
}

// mountPoints reads /proc/self/mountinfo, one line per path: a mount
// covered by a later one on the same path (listed after it, as its child)
// is judged by that one, which is what the path reaches.
func mountPoints() ([]mountPoint, error) {
	all, err := mountInfo()
	return topmost(all), err
}

func topmost(all []mountPoint) []mountPoint {
	last := map[string]int{}
	for i, m := range all {
		last[m.path] = i
	}
	var out []mountPoint
	for i, m := range all {
		if last[m.path] == i {
			out = append(out, m)
		}
	}
	return out
}

func mountInfo() ([]mountPoint, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountPoint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := parseMountLine(sc.Text()); ok {
			out = append(out, m)
		}
	}
	return out, sc.Err()
}

// parseMountLine reads "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - FSTYPE
// SOURCE SUPER".
func parseMountLine(line string) (mountPoint, bool) {
	head, tail, ok := strings.Cut(line, " - ")
	fs, ts := strings.Fields(head), strings.Fields(tail)
	if !ok || len(fs) < 6 || len(ts) < 1 {
		return mountPoint{}, false
	}
	opts := strings.Split(fs[5], ",")
	return mountPoint{path: unescape(fs[4]), root: unescape(fs[3]), fstype: ts[0], dev: fs[2], rw: len(opts) > 0 && opts[0] == "rw"}, true
}
