package registry

import (
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/policy"
)

// Cap is the host-wide admission cap: at most Max sandboxes of this user
// run at once, across every acbox process and backend.
type Cap struct {
	Max int
	// From says where Max came from, for the refusal message.
	From string
}

// ComputeCap returns floor(0.75 × hostMemory / perSandbox), or override
// when it is positive (config key "max_sandboxes"). Only three quarters of
// the memory are handed out so that the host keeps room for itself.
func ComputeCap(hostMemory, perSandbox int64, override int) Cap {
	if override > 0 {
		return Cap{Max: override, From: "max_sandboxes in config.json"}
	}
	if perSandbox <= 0 {
		perSandbox = policy.DefaultMemory
	}
	max := int(hostMemory / 4 * 3 / perSandbox)
	return Cap{Max: max, From: fmt.Sprintf("0.75 × %s host memory / %s per sandbox", gib(hostMemory), gib(perSandbox))}
}

func gib(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }

// Admit registers e if, counting e itself, no more than c.Max sandboxes
// would run. Counting and registering happen under the registry lock, so
// two launches can never both slip under the cap; dead owners' entries are
// reaped first and returned for the caller to clean up after.
func (r *Registry) Admit(e Entry, c Cap) (reaped []Entry, err error) {
	return r.AdmitCounting(e, c, nil)
}

// AdmitCounting is Admit that also counts foreign: ids of sandboxes known
// to run on the host outside this registry (other users' docker
// containers); an id this registry holds is not counted twice. While
// launches wait in the admission queue it refuses: a launch without
// --wait does not take the slot the first waiter is about to take.
func (r *Registry) AdmitCounting(e Entry, c Cap, foreign []string) (reaped []Entry, err error) {
	q, reaped, err := r.TryAdmit(e, c, foreign, nil)
	if err == nil && !q.Admitted {
		err = refusal(q, c)
	}
	return reaped, err
}

// TryAdmit registers e, under the registry lock, if a slot is free and
// t is the first live ticket in the admission queue (t nil: if nobody
// waits), and then gives t up. Otherwise it registers nothing and returns
// what it saw; the caller waits and tries again, or refuses with
// [Refusal]. Dead owners' entries are reaped first and returned.
func (r *Registry) TryAdmit(e Entry, c Cap, foreign []string, t *Ticket) (q Queue, reaped []Entry, err error) {
	unlock, err := r.lock()
	if err != nil {
		return q, nil, err
	}
	defer unlock()
	reaped, live, err := r.reapLocked()
	if err != nil {
		return q, reaped, err
	}
	tickets, err := r.ticketsLocked()
	if err != nil {
		return q, reaped, err
	}
	q.Running, q.Foreign = len(live), countForeign(foreign, live)
	for _, lt := range tickets {
		if t == nil || lt.seq < t.Seq {
			q.Ahead++
		}
	}
	if q.Ahead > 0 || q.Running+q.Foreign+1 > c.Max {
		return q, reaped, nil
	}
	if err := r.Register(e); err != nil {
		return q, reaped, err
	}
	q.Admitted = true
	return q, reaped, t.Leave()
}

func countForeign(foreign []string, live []Entry) int {
	mine := map[string]bool{}
	for _, e := range live {
		mine[e.ID] = true
	}
	n := 0
	for _, id := range foreign {
		if !mine[id] {
			mine[id] = true
			n++
		}
	}
	return n
}

// Refusal is the admission refusal for what q saw under cap c.
func Refusal(q Queue, c Cap) error { return refusal(q, c) }

func refusal(q Queue, c Cap) error {
	why := fmt.Sprintf("%d of your sandboxes already run on this host (the cap counts uid %d's sandboxes, from all its acbox processes)", q.Running, os.Getuid())
	if q.Foreign > 0 {
		why += fmt.Sprintf(", the shared docker daemon runs %d more acbox container%s this registry does not list (other users', or from another state directory)", q.Foreign, plural(q.Foreign))
	}
	if q.Ahead == 1 {
		why += ", 1 launch waits for a slot before this one"
	} else if q.Ahead > 1 {
		why += fmt.Sprintf(", %d launches wait for a slot before this one", q.Ahead)
	}
	why += fmt.Sprintf(", and the cap is %d (%s)", c.Max, c.From)
	if c.Max == 0 {
		why = fmt.Sprintf("the cap is 0 (%s): one sandbox's memory limit is larger than three quarters of the host's memory", c.From)
	}
	return policy.Refuse("admission", why,
		"queue for a slot with --wait[=DURATION] (in order, default 10m), stop one (acbox ps, acbox stop ID), lower --memory, or set max_sandboxes in ~/.config/acbox/config.json")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
