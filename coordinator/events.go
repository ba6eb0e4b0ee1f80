package coordinator

import (
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Event is one line of the status stream (--status-fd): "started",
// "egress", "exited" or "refused". Fields that do not apply to a kind are omitted.
type Event struct {
	Event      string          `json:"event"`
	Time       string          `json:"time"`
	ID         string          `json:"id,omitempty"`
	Backend    string          `json:"backend,omitempty"`
	Pid        int             `json:"pid,omitempty"`
	Access     json.RawMessage `json:"access,omitempty"`
	Report     string          `json:"report_digest,omitempty"`
	Allowed    *bool           `json:"allowed,omitempty"`
	Host       string          `json:"host,omitempty"`
	Port       int             `json:"port,omitempty"`
	Addr       string          `json:"addr,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Code       *int            `json:"code,omitempty"`
	Signal     int             `json:"signal,omitempty"`
	DurationMS int64           `json:"duration_ms,omitempty"`
	// The refused event's (see Refused); field and remedy are always
	// written, empty when there is none.
	Status  *int    `json:"status,omitempty"`
	Field   *string `json:"field,omitempty"`
	Message string  `json:"message,omitempty"`
	Remedy  *string `json:"remedy,omitempty"`
}

// Events writes one JSON object per line. It is safe for concurrent use;
// a nil *Events discards everything.
type Events struct {
	mu sync.Mutex
	w  io.Writer
}

// NewEvents writes events to w (nil: discard).
func NewEvents(w io.Writer) *Events {
	if w == nil {
		return nil
	}
	return &Events{w: w}
}

// Emit stamps and writes one event. Write errors are ignored: a reader that
// went away must not stop the sandbox.
func (e *Events) Emit(ev Event) {
	if e == nil {
		return
	}
	ev.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(append(b, '\n'))
}

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
	field, rem := policy.Field(err), remedy(status, err)
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
