package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Exit statuses of acbox itself. A member's own status passes through
// unchanged (128+N when it was killed by signal N); these are chosen above
// the range shells use for signals so that callers can tell them apart.
const (
	// ExitUsage: the command line or spec could not be parsed.
	ExitUsage = 2
	// ExitRefused: the request was understood and refused by policy
	// (a refused grant, a wider nested launch, admission).
	ExitRefused = 125
	// ExitCannotSandbox: the host could not provide a requested control;
	// nothing was run.
	ExitCannotSandbox = 126
	// ExitUnchecked: the member ran, and left something in a write grant
	// that acbox could not check or undo after the run (a git redirect it
	// could not move aside, a set-id file it could not clear, a directory
	// the exit scan could not open); the message names what to inspect.
	ExitUnchecked = 124
	// ExitNotFound: the member's command does not exist in the sandbox
	// (env(1) and docker run use 127 alike).
	ExitNotFound = 127
	// ExitCannotExecute: the member's command exists in the sandbox but
	// cannot be executed; the same status as ExitCannotSandbox, as in
	// env(1), with a message that says which.
	ExitCannotExecute = 126
	// ExitGitUnrestored is the former name of ExitUnchecked.
	ExitGitUnrestored = ExitUnchecked
)

// ErrUnchecked marks what the member left that acbox could not check or
// undo after the run (cmd/acbox: gitredirect.go, scan.go, broker.go).
var ErrUnchecked = errors.New("the member left something in a write grant that acbox could not check or undo")

// ErrGitUnrestored is the former name of ErrUnchecked.
var ErrGitUnrestored = ErrUnchecked

// ErrRefused marks errors that refuse a request by policy.
var ErrRefused = errors.New("refused by policy")

// ErrCannotSandbox marks errors where the host could not provide a control.
var ErrCannotSandbox = errors.New("cannot sandbox")

// ErrInvalid marks malformed input (bad spec fields, unknown values).
var ErrInvalid = errors.New("invalid request")

// RefusedError names the path or value refused, why, and what to do instead.
type RefusedError struct {
	Subject string // the path or value, as the user wrote it
	Why     string
	Instead string // the next step; may be empty
	Field   string // the spec field as a JSON path (access.read[0]); may be empty
}

func (e *RefusedError) Error() string {
	// A path may be one a member chose (a nested launch's grant): it is
	// quoted as every name is (Quote). Other subjects are acbox's words
	// ("--net host"), quoted only if they hold what a terminal acts on.
	subj := e.Subject
	if strings.HasPrefix(subj, "/") || !Printable(subj) {
		subj = Quote(subj)
	}
	s := subj + ": " + e.Why
	if e.Instead != "" {
		s += "; " + e.Instead
	}
	return s
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

func refuse(subject, why, instead string) error {
	return &RefusedError{Subject: subject, Why: why, Instead: instead}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ExitCode maps an error from planning or launching to acbox's exit status.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrUnchecked): // first: it may be joined to a launch error, and the member ran
		return ExitUnchecked
	case errors.Is(err, ErrInvalid):
		return ExitUsage
	case errors.Is(err, ErrRefused):
		return ExitRefused
	case errors.Is(err, ErrNotFound):
		return ExitNotFound
	case errors.Is(err, ErrCannotExecute):
		return ExitCannotExecute
	default:
		return ExitCannotSandbox
	}
}

// Refuse is a policy refusal of subject, why it is refused and what to do
// instead (for packages beside this one that refuse on the policy's terms).
func Refuse(subject, why, instead string) error { return refuse(subject, why, instead) }

// Invalid is an ErrInvalid error with a formatted message.
func Invalid(format string, args ...any) error { return invalid(format, args...) }
