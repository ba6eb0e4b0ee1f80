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
		{"asound", true, true}, {"locks", false, true},
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

// TestProcRootOnly: the mode rule hides what others may not read (files)
// or list and search (directories), and never a link or a pid.
func TestProcRootOnly(t *testing.T) {
	for _, c := range []struct {
		mode uint32
		want bool
	}{
		{0o100400, true}, {0o100440, true}, {0o100600, true}, {0o100444, false}, {0o100644, false}, {0o100204, false},
		{0o040500, true}, {0o040550, true}, {0o040554, true}, {0o040551, true}, {0o040555, false},
		{0o120777, false}, {0o120000, false}, {0o020000, false},
	} {
		if got := ProcRootOnly(c.mode); got != c.want {
			t.Errorf("ProcRootOnly(%o) = %v, want %v", c.mode, got, c.want)
		}
	}
	for n, want := range map[string]bool{"1": true, "4194304": true, "self": false, "": false, "1a": false, "thread-self": false} {
		if got := ProcPidEntry(n); got != want {
			t.Errorf("ProcPidEntry(%q) = %v, want %v", n, got, want)
		}
	}
}
