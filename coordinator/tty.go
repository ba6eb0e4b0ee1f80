package coordinator

import (
	"os"

	"golang.org/x/term"

	"github.com/acbox/acbox/coordinator/policy"
)

// needTerminal refuses a terminal session (tty) whose input is not a
// terminal. The member's private pty cannot pass an end of input on: a
// pty's reader sees EOF only when the line discipline reads the EOF
// character, and a pipe's bytes arrive raw, so `echo hi | acbox run --tty
// -- cat` would never end. docker run -t refuses the same way ("the input
// device is not a TTY").
func needTerminal(in *os.File) error {
	if in != nil && term.IsTerminal(int(in.Fd())) {
		return nil
	}
	return policy.AtField("tty", policy.Refuse("--tty", "the input is not a terminal (the input device is not a TTY), so the member's terminal would never see its end",
		"drop --tty (or pass --no-tty, or \"tty\": false in the spec) when the input is a pipe or a file"))
}
