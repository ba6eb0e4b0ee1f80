package engine

import (
	"errors"
	"net/http"
)

// Errors to match with errors.Is.
var (
	// ErrNotLocal: DOCKER_HOST names something other than a Unix socket.
	ErrNotLocal = errors.New("not a local Unix socket")
	// ErrConnect: the daemon could not be reached (the cause, often an
	// errno such as ENOENT, ECONNREFUSED or EACCES, is wrapped too).
	ErrConnect = errors.New("cannot reach the Docker daemon")
	// ErrNotFound: the daemon answered 404 (no such container or image).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the daemon answered 409 (a removal already under way).
	ErrConflict = errors.New("conflict")
)

// Error is the daemon's refusal of a request: its status and message.
type Error struct {
	Status  int
	Message string
}

// Error reads as the docker CLI prints it.
func (e *Error) Error() string {
	return "Error response from daemon: " + e.Message
}

// Is matches ErrNotFound and ErrConflict by status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrConflict:
		return e.Status == http.StatusConflict
	}
	return false
}
