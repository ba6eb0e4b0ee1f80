package main

import (
	"encoding/json"
	"fmt"

	"github.com/acbox/acbox/coordinator/policy"
)

// ProfileCmd lists and shows the saved launch profiles.
type ProfileCmd struct {
	List ProfileListCmd `cmd:"" help:"List the saved profiles (~/.config/acbox/profiles/*.json)."`
	Show ProfileShowCmd `cmd:"" help:"Print one profile as acbox run would use it (paths expanded)."`
}

// ProfileListCmd prints one profile name per line; a profile that a launch
// would refuse (owner, mode, a broken spec) is marked with the reason.
type ProfileListCmd struct{}

// Run lists the names.
func (c *ProfileListCmd) Run(s *Streams) error {
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	names, err := policy.ListProfiles(h)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := policy.LoadProfile(n, h); err != nil {
			fmt.Fprintf(s.Out, "%s\tunusable: %v\n", n, err)
			continue
		}
		fmt.Fprintln(s.Out, n)
	}
	return nil
}

// ProfileShowCmd prints one profile's spec, checked and expanded.
type ProfileShowCmd struct {
	Name string `arg:"" help:"Profile name ([a-zA-Z0-9_-]+)."`
}

// Run loads the profile with every check a launch applies, and prints it.
func (c *ProfileShowCmd) Run(s *Streams) error {
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	p, err := policy.LoadProfile(c.Name, h)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(p.Spec, "", "  ")
	_, err = fmt.Fprintln(s.Out, string(b))
	return err
}

// fromProfile starts the spec from --profile and applies the flags over
// it. --spec is refused with it: two whole launches do not merge.
func (f *LaunchFlags) fromProfile(h policy.Host) (policy.Spec, *policy.Profile, error) {
	if f.Spec != "" {
		return policy.Spec{}, nil, fmt.Errorf("%w: --profile and --spec cannot be combined; put the launch in one of them", policy.ErrInvalid)
	}
	p, err := policy.LoadProfile(f.Profile, h)
	if err != nil {
		return policy.Spec{}, nil, err
	}
	s := p.Spec
	if err := f.apply(&s); err != nil {
		return s, nil, err
	}
	return s, &p, nil
}
