package backend

import "github.com/acbox/acbox/coordinator/policy"

// Expecter is implemented by a backend that can tell, before anything
// runs, which controls it would enforce for a plan on this host: the
// report `acbox plan` prints beside the plan (the same structure a launch's
// --report has). Optional: a backend without it prints no expected report.
type Expecter interface {
	Expect(p *policy.Plan) *policy.Report
}
