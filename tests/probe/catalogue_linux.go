package probe

func catalogue() []Probe {
	var out []Probe
	for _, group := range [][]Probe{fsProbes(), procProbes(), kernelProbes(), terminalProbes(),
		networkProbes(), infoProbes(), resourceProbes()} {
		out = append(out, group...)
	}
	return out
}
