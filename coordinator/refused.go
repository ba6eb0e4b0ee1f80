package coordinator

import (
	"errors"

	"github.com/acbox/acbox/coordinator/policy"
)

// IDError is an error of a launch that got as far as choosing its backend:
// ID is the sandbox's id, for the refused event. Its text is the wrapped
// error's.
type IDError struct {
	ID  string
	Err error
}

func (e *IDError) Error() string { return e.Err.Error() }
func (e *IDError) Unwrap() error { return e.Err }

func withID(id string, err error) error {
	if err == nil {
		return nil
	}
	return &IDError{ID: id, Err: err}
}

// SandboxID is the id of the sandbox err is about, "" when there is none.
func SandboxID(err error) string {
	var ie *IDError
	if errors.As(err, &ie) {
		return ie.ID
	}
	return ""
}

// Refused is the refused event: written as the last event before acbox
// exits with one of its own statuses (2, 124, 125, 126, 127), so a client
// need not read standard error. msg is the text acbox prints there,
// without "acbox: ".
func Refused(id string, status int, msg string, err error) Event {
	field, rem := policy.FieldOf(err), remedy(status, err)
	return Event{Event: "refused", ID: id, Status: &status, Field: &field, Message: msg, Remedy: &rem}
}

// remedy is err's next step, else the one of its class.
func remedy(status int, err error) string {
	if r := policy.Remedy(err); r != "" {
		return r
	}
	switch status {
	case policy.ExitUsage:
		return "see acbox run --help and docs/spec.schema.json"
	case policy.ExitCannotSandbox:
		return "run acbox doctor for the remedy"
	case policy.ExitUnchecked:
		return "inspect what the message names in the write grants before trusting them"
	}
	return ""
}
