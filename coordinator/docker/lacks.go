package docker

import (
	"strings"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Lacks implements backend.Backend: a plan resolved for another backend,
// the host view, nested launches, the host network, and masks that would
// be visible in the container (inside a grant or a runtime mount). Masks
// in host system directories are moot: the container's system files are
// the image's. Carve-outs in write grants are supported: they are binds
// like the grants (spec.go). Launch refuses a plan that lacks anything
// (backend.Refuse), before it talks to the daemon.
//
// Every Plan field is classified in lacks_test.go as honoured, refused
// here, or without effect in a container; a field added to the Plan fails
// that test until it is classified, so a control this backend does not
// know is never silently ignored. Off Linux it lacks the host-side checks
// every launch needs (host.go).
func (b Backend) Lacks(p *policy.Plan) []string {
	out := backend.OtherBackend(b, p)
	if b.hostSupport() != nil {
		out = append(out, needsLinuxProc+"; "+runOnLinux)
	}
	if p.View != "" && p.View != policy.ViewGrants {
		out = append(out, refusal("view "+p.View, "the docker backend shows grants only", "use --backend native for the host view"))
	}
	if p.Delegate {
		out = append(out, refusal("nested launches", "the docker backend has no broker for nested launches", "use --backend native"))
	}
	if p.Network.Mode == "host" {
		out = append(out, refusal("--net host", "the docker backend runs with network none only", "use --net proxy with --allow, or --backend native"))
	}
	return append(out, visibleMasks(p)...)
}

// visibleMasks names each mask that lies inside what the container shows.
func visibleMasks(p *policy.Plan) []string {
	var out []string
	for _, m := range p.Masks {
		for _, src := range visibleSources(p) {
			if m.Path == src || strings.HasPrefix(m.Path, src+"/") {
				out = append(out, refusal(m.Path, "a masked path lies inside "+src+" and the docker backend cannot mask it", "grant a narrower directory, or use --backend native"))
				break
			}
		}
	}
	return out
}

// refusal is the text of the policy.RefusedError the backend returned for
// the same shortfall before Lacks listed them.
func refusal(subject, why, instead string) string {
	return (&policy.RefusedError{Subject: subject, Why: why, Instead: instead}).Error()
}

func visibleSources(p *policy.Plan) []string {
	var out []string
	for _, g := range p.Grants {
		out = append(out, g.Path)
	}
	for _, m := range p.Mounts {
		out = append(out, m.Source)
	}
	return out
}
