package nsjail

import (
	"fmt"
	"strconv"
	"strings"
)

// System V IPC objects (message queues, shared memory segments, semaphore
// sets) are kernel memory that no rlimit counts and that outlives the
// process that made it: it is freed only when the sandbox's IPC namespace
// ends. A fresh IPC namespace starts with the kernel's defaults (32,000
// message queues of 16 KiB: 500 MiB of message text; shared memory without
// limit), so a member without a cgroup held many times its --memory there
// (attack repro-3 of 2026-12-02). The limits are per IPC namespace, and
// pid 1, as the root of the sandbox's user namespace, may write them
// during setup; the member never can (/proc/sys is read-only to it).
//
// Each class gets ipcShare of --memory at most, by what it can really
// hold, kernel headers included, and never more than the host allows:
//
//   - message queues: a queue admits at most msgmnb bytes of text AND at
//     most msgmnb messages, so its worst is msgmnb empty messages, each a
//     48-byte header in a 64-byte slab object (72 bytes of unreclaimable
//     slab measured, 6.18): msgmni x msgmnb x msgCost.
//   - shared memory: shmall pages in all (shmmax bytes in one segment).
//   - semaphores: a set costs a header and 64 bytes a semaphore, and every
//     process that uses SEM_UNDO on a set gets an undo record of 2 bytes a
//     semaphore: semmns x (64 + 2 x pids) + semmni x (256 + 96 x pids).

// ipcShare is the fraction of --memory each class may hold: three classes
// at a quarter each leave a quarter of the budget for the rest of the
// kernel memory a sandbox makes.
const ipcShare = 4

// msgCost is what an empty message costs in the kernel, with room over
// the 72 bytes measured (its header's slab object and the slab's own
// overhead); msgQueueBytes is the queue size acbox keeps when the budget
// allows (the kernel's default msgmnb).
const (
	msgCost       = 96
	msgQueueBytes = 16384
	semCost       = 64  // struct sem, one cache line
	semSetCost    = 256 // struct sem_array without its semaphores
	semAdjCost    = 2   // one undo adjustment (short)
	semUndoCost   = 96  // struct sem_undo and its list entry
	semSetsWanted = 128 // sets acbox keeps when the budget allows
	pageSize      = 4096
)

// ipcLimit is one file under /proc/sys/kernel: the parent's value and the
// cap pid 1 writes in the sandbox's IPC namespace (kernel.sem is four
// numbers, so both are text).
type ipcLimit struct {
	Name string `json:"name"`
	Host string `json:"host"`
	Cap  string `json:"cap"`
}

// ipcLimitNames are the files planned, in the order pid 1 writes them.
var ipcLimitNames = []string{"msgmnb", "msgmni", "shmmax", "shmall", "sem"}

// ipcLimitCaps plans the caps from the host's values (name -> text; a
// name missing there is skipped: pid 1 then refuses, since the budget is
// not in force), the memory limit and the sandbox's process limit.
func ipcLimitCaps(host map[string]string, memory int64, pids int) []ipcLimit {
	budget := max(memory/ipcShare, pageSize)
	caps := map[string]string{}
	mnb, mni := msgCaps(hostInt(host, "msgmnb"), hostInt(host, "msgmni"), budget)
	caps["msgmnb"], caps["msgmni"] = fmt.Sprint(mnb), fmt.Sprint(mni)
	caps["shmmax"] = fmt.Sprint(capAt(hostUint(host, "shmmax"), uint64(budget)))
	caps["shmall"] = fmt.Sprint(capAt(hostUint(host, "shmall"), uint64(budget/pageSize)))
	if sem, ok := semCaps(host["sem"], budget, pids); ok {
		caps["sem"] = sem
	}
	var out []ipcLimit
	for _, n := range ipcLimitNames {
		h, ok := host[n]
		if !ok {
			continue
		}
		c, ok := caps[n]
		if !ok {
			c = "" // the host's value could not be parsed: pid 1 refuses
		}
		out = append(out, ipcLimit{Name: n, Host: h, Cap: c})
	}
	return out
}

// msgCaps keeps msgmnb at the kernel's default queue size (or the host's,
// if smaller) and allows as many queues as the budget holds, at least one;
// a budget below one queue shrinks the queue instead.
func msgCaps(hostMnb, hostMni, budget int64) (mnb, mni int64) {
	mnb = capAt64(hostMnb, msgQueueBytes)
	mni = capAt64(hostMni, budget/(mnb*msgCost))
	if mni < 1 {
		mni, mnb = 1, max(budget/msgCost, 1)
	}
	return mnb, mni
}

// semCaps caps "SEMMSL SEMMNS SEMOPM SEMMNI": at most semSetsWanted sets,
// fewer if their undo records alone would pass the budget, and the
// semaphores the rest of the budget holds.
func semCaps(host string, budget int64, pids int) (string, bool) {
	f := strings.Fields(host)
	if len(f) != 4 {
		return "", false
	}
	var v [4]int64
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return "", false
		}
		v[i] = n
	}
	p := int64(max(pids, 1))
	perSet, perSem := semSetCost+semUndoCost*p, semCost+semAdjCost*p
	mni := capAt64(v[3], min(semSetsWanted, budget/2/perSet))
	mns := capAt64(v[1], (budget-mni*perSet)/perSem)
	msl := min(v[0], mns)
	return fmt.Sprintf("%d %d %d %d", msl, mns, v[2], max(mni, 0)), true
}

// capAt is min(host, want) for an unsigned sysctl; a host value that
// could not be read (0) takes the cap.
func capAt(host, want uint64) uint64 {
	if host == 0 || host > want {
		return want
	}
	return host
}

func capAt64(host, want int64) int64 {
	if host <= 0 || host > want {
		return max(want, 0)
	}
	return host
}

func hostInt(host map[string]string, name string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(host[name]), 10, 64)
	return n
}

func hostUint(host map[string]string, name string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimSpace(host[name]), 10, 64)
	return n
}
