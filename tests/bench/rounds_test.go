//go:build bench

package bench

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"
)

// An arm is one way to the origin: "" for direct, else the address of a
// proxy (the bridge, or the bare relay) to CONNECT or GET through.
type arm struct {
	name string
	addr string
}

// armResult holds one arm's samples, one per round, and the process CPU
// time its samples took (client, origin and whatever relays, together).
type armResult struct {
	samples []float64
	cpu     time.Duration
}

// rounds runs measure once per arm per round, in an order that rotates
// each round and runs backwards every other cycle (2 arms: AB BA BA AB; 3
// arms: all six orders in six rounds), so no arm always runs first or after
// the same neighbour. Sample i of every arm was taken within the same
// second, so ratios are taken round by round, on a machine in one state.
// A first round, not recorded, warms each arm up (buffer pools, the
// listeners' goroutines, socket memory).
func rounds(arms []arm, n int, measure func(addr string) float64) map[string]*armResult {
	for _, a := range arms {
		measure(a.addr)
	}
	res := map[string]*armResult{}
	for _, a := range arms {
		res[a.name] = &armResult{}
	}
	for i := 0; i < n; i++ {
		for j := range arms {
			k := (i + j) % len(arms)
			if (i/len(arms))%2 == 1 {
				k = (i + len(arms) - 1 - j) % len(arms)
			}
			a := arms[k]
			before := cpuTime()
			v := measure(a.addr)
			r := res[a.name]
			r.cpu += cpuTime() - before
			r.samples = append(r.samples, v)
		}
	}
	return res
}

// perRound combines two arms' samples round by round (a ratio, a difference).
func perRound(a, b []float64, f func(a, b float64) float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = f(a[i], b[i])
	}
	return out
}

// spread prints a median with the middle half and the whole range of its
// samples: "0.62 [0.55-0.70; 0.41-0.90]".
func spread(s []float64, format string) string {
	c := append([]float64{}, s...)
	sort.Float64s(c)
	f := func(v float64) string { return fmt.Sprintf(format, v) }
	return fmt.Sprintf("%s [%s-%s; %s-%s]", f(quantile(c, 0.5)), f(quantile(c, 0.25)), f(quantile(c, 0.75)), f(c[0]), f(c[len(c)-1]))
}

// quantile of sorted s, interpolated between neighbours.
func quantile(s []float64, q float64) float64 {
	x := q * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

func medianF(s []float64) float64 {
	c := append([]float64{}, s...)
	sort.Float64s(c)
	return quantile(c, 0.5)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadavg is the machine's 1-minute load average: on a shared VM the
// proxy's ratios move with it far more than with the code.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
