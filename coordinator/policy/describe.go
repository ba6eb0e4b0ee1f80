package policy

// WithRemedy marks err (about field, which may be empty) with the next step.
func WithRemedy(field, remedy string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Remedy: remedy, Err: err}
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
