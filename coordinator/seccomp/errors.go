package seccomp

import "errors"

// ErrUnsupported: this build or this kernel cannot apply a seccomp filter.
// Errors that wrap it say which, and what to do.
var ErrUnsupported = errors.New("seccomp filtering is not available")
