package policy

// FieldError names the spec field an error is about, as a JSON path
// (access.read[0], cwd, tmpfs[1].size), and may carry the next step. Its
// text is the wrapped error's: the field is for programs (the refused
// event), the message stays as people read it.
type FieldError struct {
	Field  string
	Remedy string // may be empty: then a wrapped error's next step
	Err    error
}

func (e *FieldError) Error() string     { return e.Err.Error() }
func (e *FieldError) Unwrap() error     { return e.Err }
func (e *FieldError) FieldPath() string { return e.Field }
func (e *FieldError) NextStep() string  { return e.Remedy }

// AtField marks err as being about field. A field already named deeper
// in err wins: it is the more precise one.
func AtField(field string, err error) error {
	if err == nil || Field(err) != "" {
		return err
	}
	return &FieldError{Field: field, Err: err}
}

// WithRemedy marks err (about field, which may be empty) with the next step.
func WithRemedy(field, remedy string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Remedy: remedy, Err: err}
}

// Field is the spec field err is about, "" when it names none.
func Field(err error) string {
	return first(err, func(e error) string {
		if f, ok := e.(interface{ FieldPath() string }); ok {
			return f.FieldPath()
		}
		return ""
	})
}

// Remedy is the next step err names, "" when it names none.
func Remedy(err error) string {
	return first(err, func(e error) string {
		if f, ok := e.(interface{ NextStep() string }); ok {
			return f.NextStep()
		}
		return ""
	})
}

func (e *RefusedError) FieldPath() string { return e.Field }
func (e *RefusedError) NextStep() string  { return e.Instead }

// first is the first non-empty get(e) over err's tree, outermost first.
func first(err error, get func(error) string) string {
	for err != nil {
		if s := get(err); s != "" {
			return s
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if s := first(e, get); s != "" {
					return s
				}
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}
