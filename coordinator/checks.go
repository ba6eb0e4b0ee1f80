package coordinator

import (
	"fmt"
	"io"
	"strings"

	"github.com/acbox/acbox/coordinator/exitscan"
	"github.com/acbox/acbox/coordinator/gitguard"
	"github.com/acbox/acbox/coordinator/policy"
)

// Checks are the checks after the run, the seam through which the
// launcher reaches the exit scan and the git-redirect guard. Both begin
// before the launch and finish after every process of the sandbox has
// ended, on every way out (the member's exit, a failed launch, a signal
// held meanwhile). Each finding is named on the member's standard error;
// what could not be checked or undone is a policy.ErrUnchecked error
// (exit 124). A nil Checks runs none.
type Checks interface {
	// BeginScan begins the exit scan once the plan is final, before
	// admission; full (Request.Report) also walks the write grants before
	// the run and reports every class.
	BeginScan(p *policy.Plan, full bool) (ScanCheck, error)
	// WatchGit records the plan's protected repositories, just before the
	// launch. A refusal (a work tree too large to check) stops the launch.
	WatchGit(p *policy.Plan) (GitCheck, error)
}

// ScanCheck finishes one launch's exit scan.
type ScanCheck interface {
	// Finish walks the write grants after the run, undoes what it can,
	// prints the findings on errw and returns the report's exit_scan
	// section with gitMoved listed in it (nil: nothing to report).
	Finish(errw io.Writer, gitMoved []string) (*exitscan.ExitScan, error)
}

// GitCheck finishes one launch's git-redirect guard.
type GitCheck interface {
	// Quarantine moves aside what the member changed, says so on errw and
	// returns the paths found.
	Quarantine(errw io.Writer) ([]string, error)
}

// GuardChecks are the product's checks after the run: the exit scan
// (package coordinator/exitscan) and the git-redirect guard (package
// coordinator/gitguard).
type GuardChecks struct{}

// BeginScan implements Checks.
func (GuardChecks) BeginScan(p *policy.Plan, full bool) (ScanCheck, error) {
	return guardScan{exitscan.Begin(p, full)}, nil
}

// WatchGit implements Checks.
func (GuardChecks) WatchGit(p *policy.Plan) (GitCheck, error) {
	w, err := gitguard.WatchPlan(p)
	if err != nil {
		return nil, err
	}
	return w, nil
}

type guardScan struct{ s *exitscan.Scan }

func (g guardScan) Finish(errw io.Writer, moved []string) (*exitscan.ExitScan, error) {
	es, err := g.s.Finish(errw)
	return es.WithGitRedirects(moved), err
}

// afterRun is the check after every process of the sandbox has ended:
// first the nested children (broker.end: none can write after the
// checks), then the git quarantine, then the exit scan. Whatever could
// not be checked or undone is an ErrUnchecked error (exit 124).
func afterRun(errw io.Writer, br *broker, git GitCheck, scan ScanCheck) (*Result, []string, error) {
	errs := []error{br.end()}
	var moved []string
	if git != nil {
		errs = append(errs, contained("git check", func() (err error) {
			moved, err = git.Quarantine(errw)
			return err
		}))
	}
	r := &Result{}
	if scan != nil {
		errs = append(errs, contained("exit scan", func() (err error) {
			r.Scan, err = scan.Finish(errw, moved)
			return err
		}))
	}
	return r, moved, firstError(errs)
}

// contained runs one check after the run so that a fault in it (a parser
// that a member's file drives out of bounds, as a crafted git index once
// did) is that check's failure, exit 124, and never skips the checks after
// it or ends acbox with a stack trace.
func contained(name string, check func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the %s failed inside acbox (%s), so what it checks was not checked; "+
				"please report this as an acbox bug, and inspect the write grants before running git or any program in them",
				policy.ErrUnchecked, name, fmt.Sprint(p))
		}
	}()
	return check()
}

// firstError is the first non-nil error, with the others' text after it
// (each is also printed where it arose).
func firstError(errs []error) error {
	var first error
	var more []string
	for _, e := range errs {
		switch {
		case e == nil:
		case first == nil:
			first = e
		default:
			more = append(more, e.Error())
		}
	}
	if first != nil && len(more) > 0 {
		return fmt.Errorf("%w; and %s", first, strings.Join(more, "; and "))
	}
	return first
}
