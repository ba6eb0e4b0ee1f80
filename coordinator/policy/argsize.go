package policy

import (
	"fmt"
	"strings"
)

// Limits of execve(2) on Linux that a launch can be checked against before
// anything starts: one argument or environment string may hold at most
// MaxArgStrlen bytes with its terminating NUL (MAX_ARG_STRLEN), and all of
// them with their pointers at most a quarter of the stack limit, 2 MiB
// under the default 8 MiB. MaxArgTotal leaves room below that for what the
// backends add (ACBOX_ACCESS, ACBOX_ID). Past these the member's exec fails
// with E2BIG, and on the docker backend so does the container's own init,
// which sees the environment too, before it can say why.
const (
	MaxArgStrlen = 32 * 4096
	MaxArgTotal  = 2<<20 - 64<<10
)

// checkArgSize refuses a command line or environment the kernel would not
// execute, naming the first string that is too long.
func checkArgSize(argv, env []string) error {
	total := 0
	for i, a := range argv {
		if len(a)+1 > MaxArgStrlen {
			return AtField(fmt.Sprintf("command[%d]", i), tooLong(fmt.Sprintf("argument %d", i), len(a)))
		}
		total += len(a) + 1 + 8
	}
	for _, kv := range env {
		if len(kv)+1 > MaxArgStrlen {
			name, _, _ := strings.Cut(kv, "=")
			return AtField("env."+name, tooLong("environment variable "+name, len(kv)))
		}
		total += len(kv) + 1 + 8
	}
	if total > MaxArgTotal {
		return AtField("env", refuse("the command line and environment", fmt.Sprintf("together take %d bytes, more than the %d the member's exec can take", total, MaxArgTotal),
			"pass less in --env and the arguments, or pass large data in a file under a grant"))
	}
	return nil
}

func tooLong(what string, n int) error {
	return refuse(what, fmt.Sprintf("is %d bytes long; the kernel executes no argument or environment string longer than %d bytes", n, MaxArgStrlen-1),
		"pass large data in a file under a grant instead")
}
