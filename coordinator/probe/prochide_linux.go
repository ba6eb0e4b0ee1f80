package probe

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// hostProcProbe: the host-wide kernel files of /proc read empty or fail,
// and the hidden directories list nothing. A root caller's member is host
// root to the 0400 ones (kpageflags, slabinfo, vmallocinfo, pagetypeinfo).
func hostProcProbe() Probe {
	return Probe{ID: "fs.proc-host-info", Category: Filesystem, Source: "attack 2026-12-01 (repro-4); runc/Docker masked paths",
		Expect: "the host-wide kernel files of /proc (kpageflags, kpagecount, kpagecgroup, slabinfo, vmallocinfo, pagetypeinfo, timer_list, keys, kallsyms, interrupts and more) read empty or fail, /proc/acpi, /proc/scsi, /proc/asound list nothing, and /proc/irq, /proc/bus, /proc/fs, /proc/sys are on read-only mounts",
		Run:    hostProcInfo}
}

func hostProcInfo(*Env) Outcome {
	var got []string
	for _, n := range policy.ProcMaskFiles() {
		if readsSomething("/proc/" + n) {
			got = append(got, "/proc/"+n)
		}
	}
	for _, n := range policy.ProcMaskDirs() {
		if des, err := os.ReadDir("/proc/" + n); err == nil && len(des) > 0 {
			got = append(got, "/proc/"+n)
		}
	}
	for _, n := range policy.ProcReadOnlyDirs() {
		var fs unix.Statfs_t
		if err := unix.Statfs("/proc/"+n, &fs); err == nil && fs.Flags&unix.ST_RDONLY == 0 {
			got = append(got, "/proc/"+n+" (writable mount)")
		}
	}
	if len(got) > 0 {
		return failf("readable: %s", strings.Join(got, ", "))
	}
	return passf("%d files and %d directories checked: empty, absent or refused", len(policy.ProcMaskFiles()), len(policy.ProcMaskDirs()))
}

// readsSomething: p opens and its first read returns at least one byte.
// 64 bytes: the kpage* files refuse a read that is not a multiple of 8.
func readsSomething(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.Read(b)
	return n > 0
}
