//go:build linux && amd64

package seccomp

import (
	"slices"
	"testing"
)

// systemdGroups are systemd's SystemCallFilter groups a sandbox for
// developer tools has no use for (src/shared/seccomp-util.c): every
// syscall in them that x86_64 or x86 has is refused by a rule. Names
// neither architecture has (subpage_prot, rtas, pciconfig_*) are not
// classified and are skipped.
var systemdGroups = map[string][]string{
	"@obsolete": {"_sysctl", "afs_syscall", "bdflush", "break", "create_module", "ftime", "get_kernel_syms",
		"getpmsg", "gtty", "idle", "lock", "mpx", "prof", "profil", "putpmsg", "query_module", "security",
		"sgetmask", "ssetmask", "stime", "stty", "sysfs", "tuxcall", "ulimit", "uselib", "ustat", "vserver"},
	"@cpu-emulation": {"modify_ldt", "subpage_prot", "switch_endian", "vm86", "vm86old"},
	"@debug":         {"lookup_dcookie", "perf_event_open", "pidfd_getfd", "ptrace", "rtas", "sys_debug_setcontext"},
	"@raw-io":        {"ioperm", "iopl", "pciconfig_iobase", "pciconfig_read", "pciconfig_write"},
	"@clock": {"adjtimex", "clock_adjtime", "clock_adjtime64", "clock_settime", "clock_settime64",
		"settimeofday", "stime"},
	"@module": {"delete_module", "finit_module", "init_module"},
	"@reboot": {"kexec_file_load", "kexec_load", "reboot"},
	"@swap":   {"swapoff", "swapon"},
}

func TestSystemdGroupsAreRefused(t *testing.T) {
	allowed := Allowed()
	for group, names := range systemdGroups {
		for _, n := range names {
			if slices.Contains(allowed, n) {
				t.Errorf("%s: %s is allowed", group, n)
			}
		}
	}
}

// The rules of surface.go in the interpreter, on every architecture that
// has the call, next to the calls they must leave alone: the thread
// pointer (arch_prctl, set_thread_area), memfd_create, inotify, and the
// calls kept with a reason (keptFromPeers).
func TestSurfaceRules(t *testing.T) {
	prog := buildForTest(t).insns()
	for _, c := range []struct {
		syscall string
		want    string
	}{
		{"modify_ldt", "EPERM"}, {"vm86", "EPERM"}, {"vm86old", "EPERM"},
		{"_sysctl", "ENOSYS"}, {"ustat", "ENOSYS"}, {"sysfs", "ENOSYS"}, {"nfsservctl", "ENOSYS"},
		{"bdflush", "ENOSYS"}, {"sgetmask", "ENOSYS"}, {"ssetmask", "ENOSYS"}, {"ulimit", "ENOSYS"},
		{"security", "ENOSYS"}, {"tuxcall", "ENOSYS"}, {"epoll_ctl_old", "ENOSYS"}, {"epoll_wait_old", "ENOSYS"},
		{"mbind", "ENOSYS"}, {"set_mempolicy", "ENOSYS"}, {"set_mempolicy_home_node", "ENOSYS"},
		{"get_mempolicy", "ENOSYS"}, {"migrate_pages", "ENOSYS"}, {"move_pages", "ENOSYS"},
		{"memfd_secret", "ENOSYS"}, {"fanotify_init", "EPERM"},
		{"lsm_get_self_attr", "ENOSYS"}, {"lsm_set_self_attr", "ENOSYS"}, {"lsm_list_modules", "ENOSYS"},
		{"arch_prctl", allow}, {"set_thread_area", allow}, {"memfd_create", allow}, {"fanotify_mark", allow},
		{"inotify_init1", allow}, {"sethostname", allow}, {"vhangup", allow}, {"rt_sigprocmask", allow},
		{"sigprocmask", allow},
	} {
		for _, a := range testArches {
			if sysnum[c.syscall][a.idx] < 0 {
				continue
			}
			for _, args := range [][]uint64{nil, {1, 0x1000, 0x10}, {0xffffffff, 0xffffffff, 0xffffffff}} {
				if got := eval(t, prog, a.name, c.syscall, args...); got != c.want {
					t.Errorf("%s %s(%#x): %s, want %s", a.name, c.syscall, args, got, c.want)
				}
			}
		}
	}
}
