package main

// PlanCmd prints the resolved plan as JSON and runs nothing.
type PlanCmd struct {
	LaunchFlags
}

// Run resolves and prints.
func (c *PlanCmd) Run(s *Streams) error {
	plan, _, err := c.resolve(s.In)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(plan.JSON())
	return err
}
