package nsjail

import (
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// BenchmarkEtcSnapshot builds a root caller's snapshot of the host's /etc
// (the root-only rule, the shadow files hidden) in a private mount
// namespace, as pid 1 does, and detaches it again; build and teardown are
// reported apart as medians of the thread's CPU time (ns/op is wall time). Root only: it needs the namespace.
func BenchmarkEtcSnapshot(b *testing.B) {
	inPrivateNS(b, func() { benchEtc(b) })
}

func benchEtc(b *testing.B) {
	var st unix.Stat_t
	if err := unix.Stat("/etc", &st); err != nil {
		b.Error(err)
		return
	}
	v := policy.ViewDir{Path: "/etc", Dev: st.Dev, Ino: st.Ino, Hide: []string{"shadow", "gshadow", "shadow-", "gshadow-"}, HideRoot: true}
	build, down := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		r := &rootfs{cfg: &helperConfig{Plan: &policy.Plan{Views: []policy.ViewDir{v}}}}
		t0 := threadCPU()
		under, err := openNoFollow(unix.AT_FDCWD, "/etc", true, false)
		if err != nil {
			b.Error(err)
			return
		}
		err = r.snapshot(v, under, under)
		sys.Close(under)
		if err != nil {
			b.Error(err)
			return
		}
		t1 := threadCPU()
		if err := unix.Unmount("/etc", unix.MNT_DETACH); err != nil {
			b.Error(err)
			return
		}
		build, down = append(build, t1-t0), append(down, threadCPU()-t1)
	}
	b.ReportMetric(median(build), "build-us-median")
	b.ReportMetric(median(down), "teardown-us-median")
}

// threadCPU is this thread's CPU time: the load of a shared machine
// (preemption) does not count, the work of the syscalls does.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

func median(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1e3
}
