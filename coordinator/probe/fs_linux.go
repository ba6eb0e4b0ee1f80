package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const design = "acbox design"

func fsProbes() []Probe {
	return []Probe{
		writeProbe("fs.write-root", "/", "bubblewrap tests/test-run.sh (read-only root)"),
		writeProbe("fs.write-usr", "/usr", "bubblewrap --ro-bind; Codex sandbox tests"),
		writeProbe("fs.write-etc", "/etc", "Codex linux-sandbox tests (write outside writable roots)"),
		writeProbe("fs.write-proc", "/proc", design),
		{ID: "fs.write-host-path", Category: Filesystem, Source: "sandbox-runtime (write outside allowed paths)",
			Expect: "creating a file beside the host canary (outside every grant) fails or lands in a private tmpfs the oracle checks",
			Run:    writeBesideCanary},
		{ID: "fs.read-host-canary", Category: Filesystem, Source: "sandbox-runtime (read deny)",
			Expect: "a file the runner created outside every grant cannot be read",
			Run:    func(e *Env) Outcome { return hidden(e.HostCanary, e.Canary) }},
		{ID: "fs.read-home-canary", Category: Filesystem, Source: "acbox design (credentials in ~/.ssh)",
			Expect: "a canary in the caller's real home (~/.ssh) cannot be read",
			Run:    func(e *Env) Outcome { return hidden(e.HomeCanary, e.Canary) }},
		{ID: "fs.tmp-private", Category: Filesystem, Source: "bubblewrap --tmpfs /tmp",
			Expect: "a canary in the host's /tmp is not visible in the sandbox's /tmp",
			Run:    func(e *Env) Outcome { return hidden(e.TmpCanary, e.Canary) }},
		{ID: "fs.devshm-private", Category: Filesystem, Source: "acbox design",
			Expect: "a canary in the host's /dev/shm is not visible in the sandbox's /dev/shm",
			Run:    func(e *Env) Outcome { return hidden(e.ShmCanary, e.Canary) }},
		{ID: "fs.read-grant-readable", Category: Filesystem, Source: design,
			Expect: "the read grant's file can be read (the fixture works)", Run: readGrantReadable},
		{ID: "fs.read-grant-not-writable", Category: Filesystem, Source: "bubblewrap --ro-bind",
			Expect: "creating, changing or removing files in a read grant fails", Run: readGrantNotWritable},
		{ID: "fs.write-grant-writable", Category: Filesystem, Source: design,
			Expect: "the write grant accepts a new file (the fixture works)", Run: writeGrantWritable},
		{ID: "fs.hardlink-across-grants", Category: Filesystem, Source: "CVE-2021-30465 (runc) family; acbox design",
			Expect: "hard links from the write grant to files of the read grant or /etc fail", Run: hardlinkAcross},
		{ID: "fs.rename-grant-mountpoint", Category: Filesystem, Source: "nsjail/bubblewrap mount point tests",
			Expect: "renaming or removing a grant's mount point fails", Run: renameMountpoint},
		{ID: "fs.umount-grant", Category: Filesystem, Source: "bubblewrap tests (umount in sandbox)",
			Expect: "unmounting a grant, /, /proc or /dev fails with EPERM", Run: umountGrants},
		{ID: "fs.mknod", Category: Filesystem, Source: "Docker default seccomp profile (mknod)",
			Expect: "creating a device node in the write grant fails (EACCES from Landlock, or EPERM)", Run: mknodProbe},
		{ID: "fs.proc-sys-readonly", Category: Filesystem, Source: "runc/Docker masked /proc paths",
			Expect: "/proc/sys and /proc/sysrq-trigger cannot be opened for writing", Run: procSysReadonly},
		hostProcProbe(),
		rootOnlyProcProbe(),
		procSysMountProbe(),
		{ID: "fs.sys-absent", Category: Filesystem, Source: design,
			Expect: "/sys is not mounted in the sandbox", Run: sysAbsent},
		{ID: "fs.devices", Category: Filesystem, Source: "bubblewrap --dev; nsjail",
			Expect: "/dev holds only null zero full random urandom tty pts ptmx shm fd std*; no /dev/mem, kmsg, disks", Run: devices},
		metadataProbe(),
	}
}

func writeProbe(id, dir, source string) Probe {
	return Probe{ID: id, Category: Filesystem, Source: source,
		Expect: "creating a file or directory in " + dir + " fails",
		Run: func(*Env) Outcome {
			return worst(
				expectDenied("create "+filepath.Join(dir, "acbox-probe"), createFile(filepath.Join(dir, "acbox-probe"))),
				expectDenied("mkdir "+filepath.Join(dir, "acbox-probe.d"), unix.Mkdir(filepath.Join(dir, "acbox-probe.d"), 0o755)))
		}}
}

func createFile(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		f.Close()
		os.Remove(p)
	}
	return err
}

// writeBesideCanary: the canary's directory is not granted. If the sandbox
// shows an empty private directory there (a tmpfs parent), a write may land
// in it; that is not an escape, and the runner's oracle checks the host.
func writeBesideCanary(e *Env) Outcome {
	if e.HostCanary == "" {
		return skipf("the runner named no canary")
	}
	p := filepath.Join(filepath.Dir(e.HostCanary), "written-from-inside")
	err := os.WriteFile(p, []byte("escape"), 0o644)
	if err == nil {
		return infof("%s was created inside the sandbox; joined with oracle.host-dir-unchanged, which says whether it reached the host", p)
	}
	over := os.WriteFile(e.HostCanary, []byte("escape"), 0o644)
	return worst(expectDenied("create "+p, err), expectDenied("overwrite "+e.HostCanary, over))
}

func readGrantReadable(e *Env) Outcome {
	if e.ReadGrant == "" {
		return skipf("the runner named no read grant")
	}
	b, err := os.ReadFile(filepath.Join(e.ReadGrant, "file"))
	if err != nil {
		return errorf("read grant is not readable: %v", err)
	}
	return passf("read %d bytes", len(b))
}

func readGrantNotWritable(e *Env) Outcome {
	if e.ReadGrant == "" {
		return skipf("the runner named no read grant")
	}
	f := filepath.Join(e.ReadGrant, "file")
	return worst(
		expectDenied("create in read grant", createFile(filepath.Join(e.ReadGrant, "new"))),
		expectDenied("open file O_WRONLY", openClose(f, os.O_WRONLY)),
		expectDenied("truncate file", os.Truncate(f, 0)),
		expectDenied("chmod file", os.Chmod(f, 0o777)),
		expectDenied("unlink file", unix.Unlink(f)),
		expectDenied("set xattr", unix.Setxattr(f, "user.acbox", []byte("x"), 0)))
}

func openClose(p string, flag int) error {
	f, err := os.OpenFile(p, flag, 0)
	if err == nil {
		f.Close()
	}
	return err
}

func writeGrantWritable(e *Env) Outcome {
	if e.Fixture == "" {
		return skipf("the runner named no write grant")
	}
	p := filepath.Join(e.Fixture, "written-by-probe")
	if err := os.WriteFile(p, []byte("ok"), 0o644); err != nil {
		return errorf("write grant is not writable: %v", err)
	}
	return passf("created %s", p)
}

func hardlinkAcross(e *Env) Outcome {
	if e.Fixture == "" || e.ReadGrant == "" {
		return skipf("the runner named no grants")
	}
	return worst(
		expectDenied("link read grant file into write grant", os.Link(filepath.Join(e.ReadGrant, "file"), filepath.Join(e.Fixture, "hl-read"))),
		expectDenied("link /etc/passwd into write grant", os.Link("/etc/passwd", filepath.Join(e.Fixture, "hl-passwd"))),
		expectDenied("link host canary into write grant", os.Link(e.HostCanary, filepath.Join(e.Fixture, "hl-canary"))))
}

func renameMountpoint(e *Env) Outcome {
	if e.Fixture == "" || e.ReadGrant == "" {
		return skipf("the runner named no grants")
	}
	return worst(
		expectDenied("rename write grant", os.Rename(e.Fixture, e.Fixture+".moved")),
		expectDenied("rename read grant", os.Rename(e.ReadGrant, e.ReadGrant+".moved")),
		expectDenied("rmdir read grant", unix.Rmdir(e.ReadGrant)),
		expectDenied("rename /usr", os.Rename("/usr", "/usr.moved")))
}

func umountGrants(e *Env) Outcome {
	var outs []Outcome
	for _, t := range []string{e.Fixture, e.ReadGrant, "/", "/proc", "/dev", "/usr"} {
		if t != "" {
			outs = append(outs, expectErrno("umount "+t, unix.Unmount(t, unix.MNT_DETACH), unix.EPERM))
		}
	}
	return worst(outs...)
}

func mknodProbe(e *Env) Outcome {
	if e.Fixture == "" {
		return skipf("the runner named no write grant")
	}
	p := filepath.Join(e.Fixture, "mem")
	err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 1)))
	if err == nil {
		os.Remove(p)
	}
	return expectErrno("mknod c 1 1 (/dev/mem)", err, unix.EACCES, unix.EPERM)
}

func procSysReadonly(*Env) Outcome {
	return worst(
		expectDenied("open /proc/sys/kernel/hostname O_WRONLY", openClose("/proc/sys/kernel/hostname", os.O_WRONLY)),
		expectDenied("open /proc/sysrq-trigger O_WRONLY", openClose("/proc/sysrq-trigger", os.O_WRONLY)),
		expectDenied("open /proc/sys/vm/drop_caches O_WRONLY", openClose("/proc/sys/vm/drop_caches", os.O_WRONLY)))
}

func sysAbsent(*Env) Outcome {
	var st unix.Statfs_t
	err := unix.Statfs("/sys/kernel", &st)
	if err != nil {
		return passf("/sys/kernel: %s", short(err))
	}
	if st.Type == unix.SYSFS_MAGIC {
		return failf("a sysfs is mounted at /sys")
	}
	return failf("/sys/kernel exists (filesystem type %#x)", st.Type)
}

var (
	devAllowed = []string{"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx", "shm", "fd", "stdin", "stdout", "stderr"}
	devBad     = []string{"mem", "kmem", "port", "kmsg", "console", "tty0", "tty1", "ttyS0", "vcs", "sda", "vda", "nvme0", "nvme0n1",
		"loop0", "loop-control", "fuse", "net", "kvm", "mapper", "dri", "input", "snd", "cpu", "hpet", "rtc0", "watchdog", "hidraw0", "vhost-net", "userfaultfd", "btrfs-control"}
)

// devices checks the listing when /dev can be read, and stats the known
// dangerous nodes by name either way (Landlock may refuse the listing).
func devices(*Env) Outcome { return devicesAllowing() }

// devicesAllowing is devices with extra names allowed in the listing.
func devicesAllowing(extra ...string) Outcome {
	var bad []string
	for _, n := range devBad {
		if _, err := os.Lstat("/dev/" + n); err == nil {
			bad = append(bad, n)
		}
	}
	ents, lerr := os.ReadDir("/dev")
	for _, d := range ents {
		if !slices.Contains(devAllowed, d.Name()) && !slices.Contains(extra, d.Name()) && !slices.Contains(bad, d.Name()) {
			bad = append(bad, d.Name())
		}
	}
	if len(bad) > 0 {
		return failf("unexpected /dev entries: %s", strings.Join(bad, " "))
	}
	how := "listed"
	if lerr != nil {
		how = "listing refused (" + short(lerr) + "); checked " + strconv.Itoa(len(devBad)) + " names"
	}
	return passf("%s; none of mem, kmem, kmsg, disks, kvm, fuse present", how)
}
