package docker

import (
	"encoding/json"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
)

// planExtras are plan fields this backend does not implement. They are read
// from the plan's JSON so that this check also covers plans from builds
// that have them, and refuses rather than ignores them: a plan this backend
// cannot honour must not run with something else.
type planExtras struct {
	View     string `json:"view"`
	Delegate bool   `json:"delegate"`
	Masks    []struct {
		Path string `json:"path"`
	} `json:"masks"`
}

// unsupported refuses the host view, nested launches, and masks that would
// be visible in the container: inside a grant or a runtime mount. (Masks in
// host system directories are moot: the container's system files are the
// image's.) Carve-outs in write grants (coordinator/protect.go) are
// supported: they are binds like the grants (spec.go).
func unsupported(p *policy.Plan) error {
	var x planExtras
	json.Unmarshal(p.JSON(), &x)
	return x.check(p)
}

func (x planExtras) check(p *policy.Plan) error {
	if x.View != "" && x.View != "grants" {
		return &policy.RefusedError{Subject: "view " + x.View, Why: "the docker backend shows grants only", Instead: "use --backend native for the host view"}
	}
	if x.Delegate {
		return &policy.RefusedError{Subject: "nested launches", Why: "the docker backend has no broker for nested launches", Instead: "use --backend native"}
	}
	for _, m := range x.Masks {
		for _, src := range visibleSources(p) {
			if m.Path == src || strings.HasPrefix(m.Path, src+"/") {
				return &policy.RefusedError{Subject: m.Path, Why: "a masked path lies inside " + src + " and the docker backend cannot mask it", Instead: "grant a narrower directory, or use --backend native"}
			}
		}
	}
	return nil
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
