package seccomp

// The rules below close syscalls that peers refuse by default (docker's
// default profile, systemd's @obsolete and @cpu-emulation groups,
// Chrome's and Firefox's sandboxes) and that no developer tool the member
// runs needs: shells, compilers, git, interpreters and package managers
// work without them. ENOSYS is what a kernel built without the call says,
// which callers already handle; EPERM is docker's and Chrome's answer.

var (
	x86Only   = []string{ArchX86}
	amd64Only = []string{ArchAMD64}
)

// cpuEmulationRules refuse systemd's @cpu-emulation on x86: modify_ldt
// (segment descriptors of the process's own LDT; its LDT, 16-bit segment
// and espfix paths have a record of kernel bugs: CVE-2015-3290,
// CVE-2015-5157, CVE-2017-17053) and vm86/vm86old, which a 64-bit kernel
// answers with ENOSYS anyway. Their users are Wine and DOSEMU; glibc, musl
// and Go set their thread pointer with arch_prctl or set_thread_area.
// Docker's default allows modify_ldt; Chrome's and Firefox's sandboxes
// refuse it.
func cpuEmulationRules() []Rule {
	why := "CPU emulation (segment descriptors, virtual 8086 mode) for Wine and DOSEMU, with a record of kernel bugs"
	rs := refuse(EPERM, why, "modify_ldt")
	return append(rs, refuseOn(x86Only, EPERM, why, "vm86", "vm86old")...)
}

// obsoleteRules answer systemd's @obsolete (less stime and uselib, which
// other rules refuse) and x86_64's old epoll calls with ENOSYS. Most have
// no implementation on current kernels and answer ENOSYS already; the rule
// keeps it so on the older kernels that had them (_sysctl until 5.5,
// nfsservctl until 3.1, bdflush as a stub). The ones still implemented
// are refused by the peers and used by nothing current: ustat(2) reads
// any mounted file system's counts by device number, past the mount
// namespace; sysfs(2) is /proc/filesystems; sgetmask and ssetmask are
// sigprocmask's pre-POSIX form, which glibc no longer calls.
func obsoleteRules() []Rule {
	why := "obsolete: no current libc or tool calls it (systemd's @obsolete, refused by docker's default)"
	rs := refuse(ENOSYS, why, "_sysctl", "afs_syscall", "create_module", "get_kernel_syms", "getpmsg",
		"putpmsg", "query_module", "sysfs", "ustat", "vserver", "nfsservctl")
	rs = append(rs, refuseOn(x86Only, ENOSYS, why, "bdflush", "break", "ftime", "gtty", "idle", "lock",
		"mpx", "prof", "profil", "sgetmask", "ssetmask", "stty", "ulimit")...)
	return append(rs, refuseOn(amd64Only, ENOSYS, why, "security", "tuxcall", "epoll_ctl_old", "epoll_wait_old")...)
}

// numaRules refuse the NUMA memory policy calls, which docker's default
// allows only with CAP_SYS_NICE: they move or place pages across nodes
// (migrate_pages and move_pages of other processes too), with a record of
// kernel bugs (CVE-2010-0415, CVE-2017-14140, CVE-2018-10675), and no
// tool the member runs needs them. ENOSYS is what a kernel without
// CONFIG_NUMA says; libnuma's numa_available() then reports no NUMA, and
// the JVM and others place memory as on one node.
func numaRules() []Rule {
	return refuse(ENOSYS, "NUMA memory placement: a kernel without NUMA says ENOSYS, and callers place memory as on one node",
		"mbind", "set_mempolicy", "set_mempolicy_home_node", "get_mempolicy", "migrate_pages", "move_pages")
}

// newSurfaceRules refuse recent interfaces the member has no use for:
//   - memfd_secret (5.14) maps memory removed from the kernel's direct
//     map; ENOSYS is what a kernel booted without secretmem says.
//   - fanotify_init: unprivileged fanotify (5.13) is a second file event
//     API beside inotify, which watchers use; EPERM is docker's answer
//     and what unprivileged callers got before 5.13. fanotify_mark stays
//     allowed: it needs a group only fanotify_init makes. The sandbox's
//     fanotify counter caps stay as the second layer.
//   - lsm_get_self_attr, lsm_set_self_attr, lsm_list_modules (6.8): the
//     syscall form of /proc/self/attr, where Landlock's read-only /proc
//     rule refuses writes; ENOSYS makes callers (libselinux, AppArmor's
//     library) fall back to those files. Docker allows them only with
//     CAP_SYS_ADMIN.
func newSurfaceRules() []Rule {
	rs := refuse(ENOSYS, "secret memory, taken out of the kernel's direct map; a kernel without secretmem says ENOSYS",
		"memfd_secret")
	rs = append(rs, refuse(EPERM, "a second file event API beside inotify; docker allows it only with CAP_SYS_ADMIN",
		"fanotify_init")...)
	return append(rs, refuse(ENOSYS, "LSM attributes by syscall, past Landlock's read-only /proc; callers fall back to /proc/self/attr",
		"lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules")...)
}

// refuseOn is refuse on the given architectures only, for syscalls the
// others do not have.
func refuseOn(arches []string, e Errno, why string, names ...string) []Rule {
	rs := refuse(e, why, names...)
	for i := range rs {
		rs[i].Arch = arches
	}
	return rs
}
