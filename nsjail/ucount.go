package nsjail

// Per-user kernel counters (the files of /proc/sys/user) are charged at
// every level of user namespaces: an inotify instance the member makes
// counts against the sandbox's user namespace's limit and against the host
// user's. Inside a fresh user namespace every limit is INT_MAX, so without
// a cap a member can take all the host user's inotify instances and the
// user's editor and file watchers fail until the sandbox ends.
//
// The share follows admission: at most floor(0.75 x host memory / memory
// cap) sandboxes of a user run at once, so a sandbox gets the fraction of
// each counter that its memory cap is of host memory. Together, the
// sandboxes admitted at once hold at most three quarters of any counter,
// and the user keeps the rest (less what the user's own processes use).
// Namespace counters are set to 0: the member may create no namespace at
// all (seccomp refuses it too; this is the second layer), and pid 1 needs
// none after setup.

// userCounter is one /proc/sys/user limit: the host's value, read by the
// parent, and the cap pid 1 writes in the sandbox's user namespace.
type userCounter struct {
	Name string `json:"name"` // the file under /proc/sys/user
	Host int64  `json:"host"`
	Cap  int64  `json:"cap"`
}

// userCounterNames are the limits acbox caps, counters first, then the
// namespaces.
var (
	sharedCounters  = []string{"max_inotify_instances", "max_inotify_watches", "max_fanotify_groups", "max_fanotify_marks"}
	namespaceLimits = []string{"max_user_namespaces", "max_mnt_namespaces", "max_pid_namespaces", "max_net_namespaces",
		"max_ipc_namespaces", "max_uts_namespaces", "max_cgroup_namespaces", "max_time_namespaces"}
)

// counterShare is a sandbox's share of a host limit: host x memory /
// hostMemory, rounded down, at least 1 (a tool that opens one watcher keeps
// working), never more than three quarters of the host's.
func counterShare(host, memory, hostMemory int64) int64 {
	if host <= 0 {
		return 0
	}
	share := host / 4 * 3
	if memory > 0 && hostMemory > memory {
		// host x memory / hostMemory without overflow: limits reach INT_MAX,
		// memory sizes 2^40.
		share = min(share, int64(float64(host)*float64(memory)/float64(hostMemory)))
	}
	return max(share, 1)
}

// userCounterCaps returns the caps for the host limits in host (name ->
// value; a name missing there is absent on this kernel and skipped).
func userCounterCaps(host map[string]int64, memory, hostMemory int64) []userCounter {
	var out []userCounter
	for _, n := range sharedCounters {
		if v, ok := host[n]; ok {
			out = append(out, userCounter{Name: n, Host: v, Cap: counterShare(v, memory, hostMemory)})
		}
	}
	for _, n := range namespaceLimits {
		if v, ok := host[n]; ok {
			out = append(out, userCounter{Name: n, Host: v, Cap: 0})
		}
	}
	return out
}
