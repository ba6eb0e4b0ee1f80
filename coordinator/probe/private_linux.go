package probe

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// privateRoot launches specs with a "private" path P (README "private";
// docs/security.md "Private paths"): a grant of P, inside P or of P's
// parent is refused, and so is a runtime mount of P's parent (it would
// show all of P); a grant beside P and a mount from inside P run, so the
// refusals are about P and not a spec that cannot run at all.
func (r *Runner) privateRoot() Line {
	const id, src = "life.private-root", "README private paths; docs/security.md Private paths"
	const expect = "with a spec's private path P, a grant of P, inside P or of P's parent, and a runtime mount of P's parent, are refused (125, naming the field); a grant beside P runs"
	base := filepath.Join(r.Fixture.Write, "private-"+randHex(4))
	p, beside := filepath.Join(base, "P"), filepath.Join(base, "beside")
	for _, d := range []string{filepath.Join(p, "in"), beside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return life(id, expect, src, errorf("%v", err))
		}
	}
	read := func(d string) map[string]any { return map[string]any{"read": []string{d}} }
	mount := func(d string) []any { return []any{map[string]any{"source": d, "target": "/mnt/probe"}} }
	cases := []struct {
		what   string
		access map[string]any
		mounts []any
		field  string // "" = must run
	}{
		{"read P", read(p), nil, "access.read[0]"},
		{"write inside P", map[string]any{"write": []string{filepath.Join(p, "in")}}, nil, "access.write[0]"},
		{"read P's parent", read(base), nil, "access.read[0]"},
		{"mount P's parent", read(beside), mount(base), "mounts[0]"},
		{"read beside P", read(beside), nil, ""},
		{"mount from inside P", read(beside), mount(filepath.Join(p, "in")), ""},
	}
	var seen []string
	for i, c := range cases {
		spec := map[string]any{"private": []string{p}, "command": []string{"true"}, "cwd": beside, "access": c.access}
		if c.mounts != nil {
			spec["mounts"] = c.mounts
		}
		got, err := r.runSpec(filepath.Join(base, fmt.Sprintf("spec%d.json", i)), spec)
		if err != nil {
			return life(id, expect, src, errorf("%s: %v", c.what, err))
		}
		want := refusal{status: 0}
		if c.field != "" {
			want = refusal{status: 125, field: c.field}
		}
		if got.status != want.status || got.field != want.field {
			return life(id, expect, src, failf("%s: %v; want exit %d field %q", c.what, got, want.status, want.field))
		}
		seen = append(seen, fmt.Sprintf("%s: exit %d %s", c.what, got.status, got.field))
	}
	return life(id, expect, src, passf("%s", strings.Join(seen, "; ")))
}

// runSpec writes spec to file and runs `acbox run --spec file`.
func (r *Runner) runSpec(file string, spec map[string]any) (refusal, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return refusal{}, err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return refusal{}, err
	}
	return r.tryRun("--spec", file)
}
