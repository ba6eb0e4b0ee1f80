package policy

import (
	"errors"
	"io/fs"
	"syscall"
)

// Exec failure classes: how the start of the member's command failed
// inside the sandbox. Both backends classify the same way, in the process
// that starts the member (the native pid 1, the docker init), and send the
// class to the parent, which maps it to an exit status as env(1) and
// docker run do: not found 127, found but not executable 126.
const (
	ExecNotFound = "not-found"      // no such file on the path or PATH, or its interpreter/loader is missing
	ExecDenied   = "cannot-execute" // found, but not executable (mode, format, a directory)
	ExecTooBig   = "too-big"        // the arguments and environment exceed the kernel's limit
)

// ErrNotFound marks a member command that does not exist in the sandbox.
var ErrNotFound = errors.New("command not found in the sandbox")

// ErrCannotExecute marks a member command found in the sandbox that could
// not be executed.
var ErrCannotExecute = errors.New("command cannot be executed in the sandbox")

// ExecError is a member command that could not be started inside the
// sandbox. It travels from the sandbox's init to the parent as JSON.
type ExecError struct {
	Command string `json:"command"` // argv[0] as given
	Class   string `json:"class"`   // ExecNotFound, ExecDenied or ExecTooBig
	Detail  string `json:"detail"`  // what was looked at and the kernel's words
}

// Error names the command with Quote: in a nested launch a member chose
// it. The backends quote the paths in Detail.
func (e *ExecError) Error() string {
	switch e.Class {
	case ExecNotFound:
		return "command not found in the sandbox: " + Quote(e.Command) + " (" + e.Detail + "; the sandbox sees only the system directories, its grants and its mounts); " + e.NextStep()
	case ExecTooBig:
		return "cannot execute " + Quote(e.Command) + ": " + e.Detail + "; " + e.NextStep()
	}
	return "permission denied executing " + Quote(e.Command) + " in the sandbox: " + e.Detail + "; " + e.NextStep()
}

// Unwrap gives the class: 127, 126, or for too large an environment a
// refusal of the input (125).
func (e *ExecError) Unwrap() error {
	switch e.Class {
	case ExecNotFound:
		return ErrNotFound
	case ExecTooBig:
		return ErrRefused
	}
	return ErrCannotExecute
}

// FieldPath names the spec field the failure is about.
func (e *ExecError) FieldPath() string {
	if e.Class == ExecTooBig {
		return "env"
	}
	return "command[0]"
}

// NextStep is what to do about it.
func (e *ExecError) NextStep() string {
	switch e.Class {
	case ExecNotFound:
		return "grant the directory that holds it with --read, or mount it with --mount"
	case ExecTooBig:
		return "pass less in --env and the arguments, or pass large data in a file under a grant"
	}
	return "make it executable (chmod +x), or run it through its interpreter (for example sh FILE)"
}

// ExecClass classifies an error of looking up or executing the member's
// command, by its errno; "" when it is none of the classes (a failure of
// the sandbox, not of the command).
func ExecClass(err error) string {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return ExecNotFound
	case errors.Is(err, syscall.E2BIG):
		return ExecTooBig
	case errors.Is(err, fs.ErrPermission):
		return ExecDenied
	case !errors.As(err, &errno):
		return ""
	}
	switch errno {
	case syscall.EACCES, syscall.EPERM, syscall.ENOEXEC, syscall.EISDIR, syscall.ETXTBSY, syscall.ELOOP, syscall.ENAMETOOLONG:
		return ExecDenied
	}
	return ""
}
