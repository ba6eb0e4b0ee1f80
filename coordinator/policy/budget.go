package policy

import (
	"fmt"
	"math"
	"strings"
)

// The tmpfs budget. A tmpfs holds its pages in memory that no per-process
// rlimit counts (RLIMIT_DATA and RLIMIT_AS see mappings, not files), so
// without a memory cgroup a sandbox could park its tmpfs sizes in RAM on
// top of its --memory; with one, the pages are charged to the sandbox and a
// size above the limit is a promise the cgroup breaks. The rule, the same
// for both backends and for nested launches: the sizes of a sandbox's
// tmpfs mounts (/tmp, home, every --tmpfs, and the fixed /dev/shm) add up
// to no more than its memory limit, and no more than the host's memory.
// A nested child's limit is at most its requester's, so its tmpfs count
// against the requester's memory too (tmpfsNarrower says so by name).
const (
	// DevShmSize is the /dev/shm tmpfs every sandbox has: the native
	// backend mounts it with this size, docker's default is the same.
	DevShmSize = 64 << 20
	// MinMemory is the smallest --memory: the default /tmp and home
	// (a quarter and an eighth of the limit) and /dev/shm must fit in it.
	MinMemory = 128 << 20
	// MinPids is the smallest --pids. The limit counts acbox's own
	// processes and threads in the sandbox (pid 1, the native helper until
	// it execs, docker's init and acbox's Go init in the container): the
	// member could not start below about 12 natively, and the docker init
	// crashed after the member at 8. 32 leaves room for a shell and a child.
	MinPids = 32
)

// defaultTmpfsSizes: /tmp and home are TmpSize and HomeSize, or a quarter
// and an eighth of the memory limit when that is smaller, so a small
// --memory never refuses the defaults (3/8 of the limit plus /dev/shm fit
// in any limit from MinMemory up).
func defaultTmpfsSizes(memory int64) (tmp, home int64) {
	return min(TmpSize, memory/4), min(HomeSize, memory/8)
}

// CheckTmpfsBudget refuses tmpfs sizes that do not fit in memory (the
// sandbox's limit) or in host (the host's RAM; 0 if unknown). A size of
// 0 or less is refused: tmpfs reads size=0 as unlimited.
func CheckTmpfsBudget(ts []Tmpfs, memory, host int64) error {
	total, err := tmpfsTotal(ts)
	if err != nil {
		return err
	}
	switch {
	case memory <= 0:
		return refuse("limits.memory", "no memory limit to count the tmpfs mounts against", "set --memory")
	case total > memory:
		return budgetError(ts, total, fmt.Sprintf("more than the memory limit of %s", FormatSize(memory)), "shrink them (--tmpfs PATH:SIZE; /tmp and home too) or raise --memory")
	case host > 0 && total > host:
		return budgetError(ts, total, fmt.Sprintf("more than this host's memory (%s)", FormatSize(host)), "shrink them (--tmpfs PATH:SIZE)")
	}
	return nil
}

// tmpfsTotal adds the sizes and /dev/shm, saturating instead of wrapping
// (sizes up to 2^62 pass ParseSize; two of them would wrap to negative).
func tmpfsTotal(ts []Tmpfs) (int64, error) {
	total := int64(DevShmSize)
	for _, t := range ts {
		if t.Size <= 0 {
			return 0, refuse(t.Target, fmt.Sprintf("tmpfs size %d: a tmpfs without a positive size would be unlimited", t.Size), "give a size such as 64MiB")
		}
		if t.Size > math.MaxInt64-total {
			return math.MaxInt64, nil
		}
		total += t.Size
	}
	return total, nil
}

func budgetError(ts []Tmpfs, total int64, why, instead string) error {
	parts := []string{"/dev/shm " + FormatSize(DevShmSize)}
	for _, t := range ts {
		parts = append(parts, t.Target+" "+FormatSize(t.Size))
	}
	return refuse(largest(ts), fmt.Sprintf("the sandbox's tmpfs mounts (%s) total %s, %s: tmpfs pages are memory that no per-process limit counts",
		strings.Join(parts, ", "), totalText(total), why), instead)
}

func totalText(total int64) string {
	if total == math.MaxInt64 {
		return "more than 8EiB"
	}
	return FormatSize(total)
}

// largest names the biggest tmpfs, the likeliest one to shrink.
func largest(ts []Tmpfs) string {
	name, size := "/dev/shm", int64(DevShmSize)
	for _, t := range ts {
		if t.Size > size {
			name, size = t.Target, t.Size
		}
	}
	return name
}
