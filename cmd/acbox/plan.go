package main

import (
	"encoding/json"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// PlanCmd prints the resolved plan as JSON and runs nothing.
type PlanCmd struct {
	LaunchFlags
}

// planView is the plan with, for a backend that can say (backend.Expecter),
// the report it expects to enforce on this host (the same structure a launch's --report has).
type planView struct {
	*policy.Plan
	Expected *policy.Report `json:"expected_report,omitempty"`
}

// Run resolves and prints.
func (c *PlanCmd) Run(s *Streams) error {
	plan, _, err := c.resolve(s.In, s.Err)
	if err != nil {
		return err
	}
	v := planView{Plan: plan}
	l := coordinator.Launcher{Backends: backends()}
	if e, ok := l.Backend(plan.Backend).(backend.Expecter); ok {
		v.Expected = e.Expect(plan)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err = s.Out.Write(append(b, '\n'))
	return err
}
