package main

import (
	"io"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/policy"
)

// afterRunChecks plug the exit scan (scan.go) and the git-redirect guard
// (gitredirect.go) into the launcher's checks after the run.
type afterRunChecks struct{}

func (afterRunChecks) BeginScan(p *policy.Plan, full bool) (coordinator.ScanCheck, error) {
	s := &exitScan{full: full}
	if err := s.begin(p); err != nil {
		return nil, err
	}
	return scanCheck{s}, nil
}

func (afterRunChecks) WatchGit(p *policy.Plan) (coordinator.GitCheck, error) {
	w, err := watchGitRedirects(p)
	if err != nil {
		return nil, err
	}
	return gitCheck{w}, nil
}

type scanCheck struct{ s *exitScan }

// Finish returns the report's exit_scan, with what the git check moved.
func (c scanCheck) Finish(errw io.Writer, moved []string) (any, error) {
	es, err := c.s.finish(errw)
	if es = withRedirects(es, moved); es == nil {
		return nil, err // no typed nil: the report omits a missing scan
	}
	return es, err
}

type gitCheck struct{ w *gitWatch }

func (c gitCheck) Quarantine(errw io.Writer) ([]string, error) { return c.w.quarantine(errw) }
