package probe

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ScratchDir is a small extra tmpfs the runner gives destructive sandboxes
// (ScratchSize), so filling it costs the host little.
const (
	ScratchDir  = "/acbox-scratch"
	ScratchSize = "8MiB"
	// DestructivePids and DestructiveMemory are the limits of a
	// destructive probe's sandbox.
	DestructivePids   = 64
	DestructiveMemory = "256MiB"
)

func resourceProbes() []Probe {
	return []Probe{
		{ID: "res.fork-bomb", Category: Resources, Destructive: true, Source: "nsjail --rlimit_nproc; docs/kernel-facts.md 9",
			Expect: fmt.Sprintf("starting processes stops with EAGAIN near the sandbox's limit (%d)", DestructivePids), Run: forkBomb},
		{ID: "res.memory", Category: Resources, Destructive: true, Source: "nsjail --rlimit_as; docs/kernel-facts.md 9",
			Expect: "a 1 GiB anonymous mapping fails with ENOMEM under the " + DestructiveMemory + " limit (nothing is touched)", Run: memoryHog},
		{ID: "res.tmpfs-fill", Category: Resources, Destructive: true, Source: "bubblewrap --size; docs/kernel-facts.md 3",
			Expect: "filling " + ScratchDir + " and /dev/shm stops with ENOSPC at their size caps", Run: tmpfsFill},
		{ID: "res.fd-exhaustion", Category: Resources, Destructive: true, Source: "nsjail --rlimit_nofile",
			Expect: "opening descriptors stops with EMFILE at a finite limit", Run: fdExhaustion},
		{ID: "res.output-flood", Category: Resources, Destructive: true, Source: "acbox design",
			Expect: "32 MiB written to stdout passes through and the result line still arrives", Run: outputFlood},
		dataLimitProbe(),
		stackMemoryProbe(),
		userCountersProbe(),
		ipcMemoryProbe(),
	}
}

func forkBomb(*Env) Outcome {
	bin, err := exec.LookPath("sleep")
	if err != nil {
		return skipf("no sleep binary: %v", err)
	}
	var ps []*os.Process
	defer func() {
		for _, p := range ps {
			p.Kill()
			p.Wait()
		}
	}()
	for len(ps) < 1024 {
		p, err := os.StartProcess(bin, []string{bin, "60"}, &os.ProcAttr{})
		if err != nil {
			if errors.Is(err, unix.EAGAIN) && len(ps) <= DestructivePids {
				return passf("stopped after %d processes: %s", len(ps), short(err))
			}
			return failf("stopped after %d processes: %v", len(ps), err)
		}
		ps = append(ps, p)
	}
	why := ""
	if os.Getuid() == 0 {
		why = " (the kernel exempts the host's root user from RLIMIT_NPROC; only a pids cgroup can cap root)"
	}
	return failf("started %d processes with a limit of %d requested%s", len(ps), DestructivePids, why)
}

func memoryHog(*Env) Outcome {
	var rl unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_DATA, &rl)
	b, err := unix.Mmap(-1, 0, 1<<30, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err == nil {
		unix.Munmap(b)
		return failf("a 1 GiB mapping was allowed (RLIMIT_DATA %s); not touched, to spare the host", limitString(rl.Cur))
	}
	return expectErrno("mmap 1 GiB", err, unix.ENOMEM)
}

func limitString(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return fmt.Sprint(v)
}

func tmpfsFill(*Env) Outcome {
	return worst(fill(ScratchDir, 8<<20), fill("/dev/shm", 64<<20))
}

// fill writes into dir until ENOSPC; more than limit+1MiB is a fail.
func fill(dir string, limit int64) Outcome {
	p := filepath.Join(dir, "acbox-fill")
	f, err := os.Create(p)
	if err != nil {
		return errorf("create in %s: %v", dir, err)
	}
	defer os.Remove(p)
	defer f.Close()
	chunk := make([]byte, 1<<20)
	var n int64
	for n <= limit+1<<20 {
		w, err := f.Write(chunk)
		n += int64(w)
		if err != nil {
			return expectErrno(fmt.Sprintf("write to %s after %d bytes", dir, n), err, unix.ENOSPC)
		}
	}
	return failf("wrote %d bytes into %s, past its %d byte cap", n, dir, limit)
}

func fdExhaustion(*Env) Outcome {
	var rl unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &rl)
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for len(fds) < 1<<16 {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return expectErrno(fmt.Sprintf("open #%d (RLIMIT_NOFILE %s/%s)", len(fds), limitString(rl.Cur), limitString(rl.Max)), err, unix.EMFILE)
		}
		fds = append(fds, fd)
	}
	return failf("opened %d descriptors without EMFILE (RLIMIT_NOFILE %s)", len(fds), limitString(rl.Cur))
}

func outputFlood(*Env) Outcome {
	line := strings.Repeat("flood ", 170) + "\n"
	total := 0
	for total < 32<<20 {
		n, err := os.Stdout.WriteString(line)
		total += n
		if err != nil {
			return errorf("write after %d bytes: %v", total, err)
		}
	}
	return passf("wrote %d bytes", total)
}
