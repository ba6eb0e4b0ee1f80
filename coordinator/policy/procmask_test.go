package policy

import (
	"slices"
	"testing"
)

// TestProcMaskLists: the files of attack 2026-12-01 (repro-4) and docker's
// default /proc masks are hidden; what tools read is not.
func TestProcMaskLists(t *testing.T) {
	files, dirs := ProcMaskFiles(), ProcMaskDirs()
	for _, c := range []struct {
		name   string
		dir    bool
		hidden bool
	}{
		{"kpageflags", false, true}, {"kpagecount", false, true}, {"kpagecgroup", false, true},
		{"slabinfo", false, true}, {"vmallocinfo", false, true}, {"pagetypeinfo", false, true},
		{"kcore", false, true}, {"keys", false, true}, {"latency_stats", false, true}, {"timer_list", false, true},
		{"timer_stats", false, true}, {"sched_debug", false, true}, {"acpi", true, true}, {"scsi", true, true},
		{"asound", true, true},
		{"meminfo", false, false}, {"stat", false, false}, {"cpuinfo", false, false}, {"loadavg", false, false},
		{"uptime", false, false}, {"self", true, false}, {"sys", true, false}, {"mounts", false, false},
	} {
		list := files
		if c.dir {
			list = dirs
		}
		if got := slices.Contains(list, c.name); got != c.hidden {
			t.Errorf("/proc/%s hidden = %v, want %v", c.name, got, c.hidden)
		}
	}
}
