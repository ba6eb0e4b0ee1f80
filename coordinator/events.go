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
	// gate, when set, holds lines back until Open (see Held); held are
	// the lines it holds.
	gate *gate
}

// gate holds a held Events' lines until it opens.
type gate struct {
	open bool
	held [][]byte
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
	if g := e.gate; g != nil && !g.open {
		if len(g.held) < maxHeld {
			g.held = append(g.held, append(b, '\n'))
			return
		}
		// A backend that never reports pid 1 while its member keeps
		// connecting: memory is bounded, and the order gives way.
		e.flushLocked()
	}
	e.w.Write(append(b, '\n'))
}

// Held returns events to the same writer that are held back until Open:
// the proxy's egress events wait for "started", which the launcher writes
// only once the backend reports pid 1 while the member may already be
// connecting (contract 1: started is the first event of a launch). The
// member is not slowed: only the event lines wait, in memory, for the
// short time between the member's start and the started event. The time
// stamp is when the decision was made. nil stays nil.
func (e *Events) Held() *Events {
	if e == nil {
		return nil
	}
	return &Events{w: lockedWriter{e}, gate: &gate{}}
}

// Open writes what was held back, in order, and lets later events through.
// It is safe to call more than once and on nil.
func (e *Events) Open() {
	if e == nil || e.gate == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
}

// maxHeld bounds the lines a held Events keeps.
const maxHeld = 4096

func (e *Events) flushLocked() {
	if e.gate.open {
		return
	}
	e.gate.open = true
	for _, b := range e.gate.held {
		e.w.Write(b)
	}
	e.gate.held = nil
}

// lockedWriter writes whole lines to another Events' writer under its
// lock, so that lines of both never interleave.
type lockedWriter struct{ e *Events }

func (l lockedWriter) Write(b []byte) (int, error) {
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	return l.e.w.Write(b)
}
