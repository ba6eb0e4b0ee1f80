package coordinator

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/acbox/acbox/coordinator/exitscan"
)

// Event is one line of the status stream (--status-fd): "started",
// "egress" or "exited". Fields that do not apply to a kind are omitted.
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
	// ExitScan is the report's exit_scan on "exited", when the launch
	// scanned its write grants after the run.
	ExitScan *exitscan.ExitScan `json:"exit_scan,omitempty"`
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
