package policy

import "errors"

// FieldError names the spec field (its JSON path, e.g. "access.write[0]",
// "version", "within") that an error is about, so that a client can point
// at it without parsing the message. It wraps the error unchanged: the
// message, errors.Is and the exit status are the wrapped error's.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// AtField marks err as being about field; nil stays nil, and an error that
// names a field already keeps it (the innermost check knows best).
func AtField(field string, err error) error {
	if err == nil || FieldOf(err) != "" {
		return err
	}
	return &FieldError{Field: field, Err: err}
}

// FieldOf is the spec field err names, or "".
func FieldOf(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}
