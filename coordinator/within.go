package coordinator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// A launch "within" a live sandbox (acbox run --within ID, the spec's
// "within") is how an outside coordinator, such as the agent-team
// extension's Main, launches a member's child: only if the child is
// narrower than the requester by the broker's rules (policy.Narrower,
// the delegation depth, and no delegation the requester lacks), on either
// backend, and stopped with the requester (`acbox stop` follows Parent).
// The requester's plan is read from its registry entry (Entry.Plan),
// which only this user can have written. The check is made when the
// launch is resolved; the requester's processes are then pinned, and the
// child ends when the requester ends (within_watch.go).

// withinParent looks up the live sandbox a spec names in "within" and
// places the spec under it (Parent, Depth). nil without "within".
func (l *Launcher) withinParent(spec *policy.Spec) (*policy.Plan, error) {
	if spec.Within == "" {
		return nil, nil
	}
	if spec.Parent != "" {
		return nil, policy.AtField("within", policy.Invalid("within in a nested launch: the broker already holds the child within its requester %s; leave within out", spec.Parent))
	}
	parent, err := l.livePlan(spec.Within)
	if err != nil {
		return nil, policy.AtField("within", err)
	}
	// As the broker does: a child that names no limit gets its requester's
	// where smaller, rather than a default Narrower would refuse.
	inheritLimits(&spec.Limits, parent.Limits)
	spec.Backend = inheritBackend(spec.Backend, parent.Backend)
	spec.Parent, spec.Depth = spec.Within, parent.Depth+1
	return parent, nil
}

// livePlan is the plan of this user's live sandbox id.
func (l *Launcher) livePlan(id string) (*policy.Plan, error) {
	notLive := func(why string) error {
		return policy.Refuse(id, why, "name a running sandbox of yours (acbox ps)")
	}
	if l.Registry == nil {
		return nil, fmt.Errorf("%w: within: the launcher has no registry", policy.ErrCannotSandbox)
	}
	if err := registry.CheckID(id); err != nil {
		return nil, notLive("is not a sandbox id")
	}
	e, err := l.Registry.Get(id)
	if errors.Is(err, registry.ErrNoSandbox) {
		return nil, notLive("is not a live sandbox")
	}
	if err != nil {
		return nil, err
	}
	if e.UID != os.Getuid() || e.Owner() != registry.OwnerAlive {
		return nil, notLive("is not a live sandbox of this user in this pid namespace")
	}
	if len(e.Plan) == 0 {
		return nil, notLive("has no recorded plan (it was launched by an acbox before contract 1)")
	}
	var p policy.Plan
	if err := json.Unmarshal(e.Plan, &p); err != nil {
		return nil, fmt.Errorf("%w: within: the recorded plan of %s does not decode: %w", policy.ErrCannotSandbox, id, err)
	}
	return &p, nil
}

// narrowerThan holds a child plan to its requester by the broker's rules,
// naming the spec field that is wider.
func narrowerThan(child, parent *policy.Plan, spec policy.Spec, h policy.Host) error {
	if child.Depth > policy.MaxDelegationDepth || (child.Delegate && child.Depth >= policy.MaxDelegationDepth) {
		return policy.AtField("within", policy.Refuse("within", fmt.Sprintf("launches within a sandbox may go %d deep", policy.MaxDelegationDepth), "launch it within an outer sandbox"))
	}
	if child.Delegate && !parent.Delegate {
		return policy.AtField("delegate", policy.Refuse("delegate", "the requester may not launch sandboxes; its children may not either", "drop delegate"))
	}
	if err := policy.Narrower(child, parent); err != nil {
		return policy.AtField(widerField(err, spec, h), err)
	}
	return nil
}

// widerField is the spec field a Narrower refusal is about: the grant or
// mount whose path it names, else the name it gives ("network",
// "limits.memory", "view", ...); "" when it names neither.
func widerField(err error, spec policy.Spec, h policy.Host) string {
	var re *policy.RefusedError
	if !errors.As(err, &re) {
		return ""
	}
	subj := re.Subject
	if !strings.HasPrefix(subj, "/") {
		if subj == "network" {
			return "access.network"
		}
		return subj
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.Cwd, p)
		}
		return filepath.Clean(p)
	}
	for i, p := range spec.Access.Write {
		if abs(p) == subj {
			return fmt.Sprintf("access.write[%d]", i)
		}
	}
	for i, p := range spec.Access.Read {
		if abs(p) == subj {
			return fmt.Sprintf("access.read[%d]", i)
		}
	}
	for i, m := range spec.Mounts {
		if abs(m.Source) == subj {
			return fmt.Sprintf("mounts[%d]", i)
		}
	}
	return ""
}
