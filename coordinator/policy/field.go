package policy

// FieldError names the spec field (its JSON path, e.g. "access.write[0]",
// "version", "within") that an error is about, so that a client can point
// at it without parsing the message, and may carry the next step. It wraps
// the error unchanged: the message, errors.Is and the exit status are the
// wrapped error's.
type FieldError struct {
	Field  string
	Remedy string // may be empty: then a wrapped error's next step
	Err    error
}

func (e *FieldError) Error() string     { return e.Err.Error() }
func (e *FieldError) Unwrap() error     { return e.Err }
func (e *FieldError) FieldPath() string { return e.Field }
func (e *FieldError) NextStep() string  { return e.Remedy }

// AtField marks err as being about field; nil stays nil, and an error that
// names a field already keeps it (the innermost check knows best).
func AtField(field string, err error) error {
	if err == nil || FieldOf(err) != "" {
		return err
	}
	return &FieldError{Field: field, Err: err}
}

// FieldOf is the spec field err names, or "": a FieldError's, or that of
// any error in the chain with a FieldPath method (RefusedError, ExecError,
// a broker's refusal), outermost first.
func FieldOf(err error) string {
	return first(err, func(e error) string {
		if f, ok := e.(interface{ FieldPath() string }); ok {
			return f.FieldPath()
		}
		return ""
	})
}
