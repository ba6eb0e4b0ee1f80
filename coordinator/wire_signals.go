package coordinator

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// A nested `acbox run` passes the signals it receives on to its child as
// acbox passes its own on to a member: after its request, the client
// writes one JSON line {"signal": N} per signal it caught, and the broker
// hands each to the child's launch (Request.Signals). Killed by one
// instead, the client left the child running to its end.

// nestedSignals are the signals a nested client passes on: those acbox
// forwards to a member (heldSignals but SIGPIPE).
var nestedSignals = primedSignals

type signalLine struct {
	Signal int `json:"signal"`
}

// maxSignalLine bounds one signal line; a longer one ends the reading.
const maxSignalLine = 64

// sendSignals writes a signal line for each signal on sigs until done is
// closed or a write fails (the broker is gone, and the reply reading ends
// too).
func sendSignals(w io.Writer, sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case s := <-sigs:
			b, _ := json.Marshal(signalLine{Signal: int(s.(syscall.Signal))})
			if _, err := w.Write(append(b, '\n')); err != nil {
				return
			}
		case <-done:
			return
		}
	}
}

// recvSignals reads the client's signal lines from r and passes each
// signal on sigs, without waiting (a full channel misses it, as the
// runtime's delivery would). Anything but a signal line of nestedSignals
// ends the reading: the client sends nothing else, and a member speaking
// the protocol itself gets no further.
func recvSignals(r io.Reader, sigs chan<- os.Signal) {
	br := bufio.NewReaderSize(r, maxSignalLine)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		s, err := parseSignalLine(line)
		if err != nil {
			return
		}
		select {
		case sigs <- s:
		default:
		}
	}
}

// parseSignalLine reads one signal line as strictly as a request.
func parseSignalLine(line []byte) (os.Signal, error) {
	var l signalLine
	if err := policy.DecodeStrict(line, &l); err != nil {
		return nil, fmt.Errorf("%w: nested launch: signal line: %w", policy.ErrInvalid, err)
	}
	s := unix.Signal(l.Signal)
	if !slices.Contains(nestedSignals, os.Signal(s)) {
		return nil, fmt.Errorf("%w: nested launch: signal %d is not one acbox passes on", policy.ErrInvalid, l.Signal)
	}
	return s, nil
}
