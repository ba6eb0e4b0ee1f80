package registry

import (
	"fmt"

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
// containers); an id this registry holds is not counted twice.
func (r *Registry) AdmitCounting(e Entry, c Cap, foreign []string) (reaped []Entry, err error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	reaped, live, err := r.reapLocked()
	if err != nil {
		return reaped, err
	}
	running := len(live) + countForeign(foreign, live)
	if running+1 > c.Max {
		return reaped, refusal(running, c)
	}
	return reaped, r.Register(e)
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

func refusal(running int, c Cap) error {
	why := fmt.Sprintf("%d sandboxes already run on this host and the cap is %d (%s)", running, c.Max, c.From)
	if c.Max == 0 {
		why = fmt.Sprintf("the cap is 0 (%s): one sandbox's memory limit is larger than three quarters of the host's memory", c.From)
	}
	return policy.Refuse("admission", why,
		"wait for one to end or stop one (acbox ps, acbox stop ID), lower --memory, or set max_sandboxes in ~/.config/acbox/config.json")
}
