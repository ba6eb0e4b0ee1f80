package main

import (
	"strconv"
	"strings"

	"github.com/acbox/acbox/coordinator"
)

// refused writes the refused event, the last event of a run that ends
// with one of acbox's own statuses, to the --status-fd stream: the one
// run opened, else the one the command line names (a run refused before
// it got to open it: a bad flag, a bad spec). Other commands have no
// status stream.
func (s *Streams) refused(args []string, code int, msg string, err error) {
	events := s.status
	if events == nil {
		fd, ok := statusFdArg(args)
		if !ok {
			return
		}
		if events, _ = openEvents(fd); events == nil {
			return
		}
	}
	events.Emit(coordinator.Refused(coordinator.SandboxID(err), code, msg, err))
}

// statusFdArg finds --status-fd N (or =N) among the flags of `acbox run`,
// before the member's command.
func statusFdArg(args []string) (int, bool) {
	if len(args) == 0 || args[0] != "run" {
		return 0, false
	}
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		v, ok := strings.CutPrefix(args[i], "--status-fd=")
		if !ok && args[i] == "--status-fd" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			fd, err := strconv.Atoi(v)
			return fd, err == nil
		}
	}
	return 0, false
}
