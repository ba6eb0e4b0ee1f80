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
		out[i].Docker = docker[out[i].ID]
	}
	return out
}
