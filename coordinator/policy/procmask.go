package policy

// Host-wide kernel information under /proc. A sandbox mounts a proc of its
// own pid namespace, but many of its top-level files describe the whole
// machine, not the sandbox: the state of every physical page (kpage*), the
// slab and vmalloc allocators, kernel timers, the host's keyrings, kernel
// symbols, per-CPU interrupt counts. A root caller's member is uid 0 mapped
// to host root, so even the 0400 ones are readable. Both backends hide the
// names below (the native one binds /dev/null read-only over a file and an
// empty read-only tmpfs over a directory; docker's runc does the same from
// its masked paths), like Docker's and runc's default masked paths plus the
// page, allocator and keyring files those defaults leave readable. A name
// the running kernel lacks is skipped. Files tools read (meminfo, stat,
// cpuinfo, loadavg, uptime, vmstat, zoneinfo, self, mounts) stay.
//
// The list names what the kernels we know have; a kernel can add more
// (a custom kernel's per-program CPU accounting, /proc/program_cpu, 0400).
// So every sandbox also hides each top-level entry of its /proc that only
// root may read (ProcRootOnly), whatever its name: a root caller's member
// is that root. The native pid 1 lists its fresh /proc; the docker parent
// lists the host's (the same kernel's) and adds them to the masked paths,
// and the container's init refuses to start the member if one is not.

// procMaskFiles are files directly under /proc. locks is other-readable
// but shows the file locks of the whole host that the reader's pid
// namespace does not filter: open file description locks (pid -1) of every
// process, with the device and inode numbers of what they lock. Nothing a
// member runs reads it (lslocks is no sandbox's use case); Docker leaves
// it readable.
var procMaskFiles = []string{"kcore", "kpageflags", "kpagecount", "kpagecgroup", "slabinfo", "vmallocinfo",
	"pagetypeinfo", "timer_list", "timer_stats", "sched_debug", "keys", "key-users", "latency_stats",
	"interrupts", "sysrq-trigger", "kallsyms", "locks"}

// procMaskDirs are directories directly under /proc.
var procMaskDirs = []string{"acpi", "scsi", "asound"}

// ProcMaskFiles returns the names of the files under /proc every sandbox hides.
func ProcMaskFiles() []string { return append([]string{}, procMaskFiles...) }

// ProcMaskDirs returns the names of the directories under /proc every sandbox hides.
func ProcMaskDirs() []string { return append([]string{}, procMaskDirs...) }

// procReadOnlyDirs are directories directly under /proc that every native
// sandbox binds read-only over themselves, as Docker's default read-only
// paths do: interrupt affinity (irq), bus devices (bus), file-system
// settings (fs) and the sysctls (sys). A root caller's member is uid 0
// mapped to host root, and a sysctl's permission is its file mode against
// the euid, with no capability check in most handlers (core_pattern,
// modprobe): the read-only mount refuses the write whatever Landlock does.
// pid 1 writes the sandbox's per-user counter caps under /proc/sys/user
// after pivot_root through a descriptor it opened before the bind
// (nsjail/ucount_linux.go).
var procReadOnlyDirs = []string{"irq", "bus", "fs", "sys"}

// ProcReadOnlyDirs returns the names of the directories under /proc every
// native sandbox makes read-only.
func ProcReadOnlyDirs() []string { return append([]string{}, procReadOnlyDirs...) }

// ProcRootOnly says whether a top-level /proc entry of mode (st_mode, type
// bits included) is one that only root (its owner, or group root) may read:
// a regular file that others may not read, or a directory that others may
// not list or search. Every sandbox hides such entries whatever their name.
// Symbolic links (self, thread-self, mounts, net) and other types are not.
func ProcRootOnly(mode uint32) bool {
	switch mode & 0o170000 {
	case 0o100000:
		return mode&0o004 == 0
	case 0o040000:
		return mode&0o005 != 0o005
	}
	return false
}

// ProcPidEntry says whether a top-level /proc name is a process's
// directory (all digits), which the root-only rule does not cover.
func ProcPidEntry(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
