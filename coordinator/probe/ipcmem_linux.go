package probe

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ipcMemoryProbe: System V IPC objects are kernel memory no rlimit counts,
// kept until the sandbox's IPC namespace ends; at the kernel's defaults a
// member held 500 MiB of message queues under --memory 128MiB (attack
// repro-3 of 2026-12-02). pid 1 caps them at a quarter of --memory each
// (the member's RLIMIT_DATA is --memory).
func ipcMemoryProbe() Probe {
	return Probe{ID: "res.ipc-within-memory", Category: Resources, Source: "attack repro-3 (2026-12-02)",
		Expect: "msgmni x msgmnb x 72 bytes and shmall pages are each at most a quarter of the data limit (--memory), and the limits cannot be opened for writing",
		Run:    ipcWithinMemory}
}

func ipcWithinMemory(env *Env) Outcome {
	if env.Backend == Docker {
		// Listed in the backend comparison's dockerSkips (docs/backends.md).
		return skipf("the container's memory cgroup charges System V IPC to its limit")
	}
	var data unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &data); err != nil || data.Cur == unix.RLIM_INFINITY {
		return failf("RLIMIT_DATA %v (%v): no --memory to compare with", data.Cur, err)
	}
	budget := data.Cur / 4
	v := map[string]uint64{}
	outs := []Outcome{}
	for _, n := range []string{"msgmni", "msgmnb", "shmall"} {
		p := "/proc/sys/kernel/" + n
		b, err := os.ReadFile(p)
		if err != nil {
			return errorf("%s: %v", p, err)
		}
		if v[n], err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err != nil {
			return errorf("%s: %v", p, err)
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		outs = append(outs, expectDenied("open "+p+" O_WRONLY", err))
	}
	if msg := v["msgmni"] * v["msgmnb"] * 72; msg > budget || v["msgmni"] > 1<<20 {
		outs = append(outs, failf("msgmni %d x msgmnb %d x 72 bytes = %d MiB of message queues, above a quarter of --memory (%d MiB)",
			v["msgmni"], v["msgmnb"], msg>>20, budget>>20))
	}
	if v["shmall"] > budget/4096 {
		outs = append(outs, failf("shmall %d pages, above a quarter of --memory (%d pages)", v["shmall"], budget/4096))
	}
	if w := worst(outs...); w.Result != Pass {
		return w
	}
	return passf("msgmni %d, msgmnb %d, shmall %d pages within a quarter of --memory (%d MiB); not writable", v["msgmni"], v["msgmnb"], v["shmall"], budget>>20)
}
