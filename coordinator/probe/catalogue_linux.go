package probe

func catalogue() []Probe {
	var out []Probe
	for _, group := range [][]Probe{fsProbes(), procProbes(), kernelProbes(), setidProbes(), terminalProbes(),
		networkProbes(), hostNetProbes(), proxyProbes(), infoProbes(), resourceProbes(), ucountProbes(),
		leaseProbes()} {
		out = append(out, group...)
	}
	docker := dockerVariants()
	for i := range out {
		// A probe may carry its own docker variant; the table's wins.
		if v, ok := docker[out[i].ID]; ok {
			out[i].Docker = v
		}
	}
	return out
}
