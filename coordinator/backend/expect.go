package backend

import "github.com/acbox/acbox/coordinator/policy"

// Expecter is implemented by a backend that can say, without launching,
// the enforcement report it expects to give a plan on this host: `acbox
// plan` prints it as expected_report, the same structure a launch's
// --report has. A backend that cannot know ahead does not implement it.
type Expecter interface {
	Expect(p *policy.Plan) *policy.Report
}
