package main

import (
	"fmt"

	"github.com/alecthomas/kong"
)

// example is one worked example of `acbox run`, printed at the end of its
// help. Args are what a test parses (and, for the first, runs).
type example struct {
	What string
	Args []string
}

// runExamples end `acbox run --help`: the three launches a new user is
// most likely to want, each one line to copy.
var runExamples = []example{
	{"Build and test the repository you are in (writable; the network is off):",
		[]string{"run", "-w", ".", "--", "make", "test"}},
	{"An agent that may edit the repository and reach only its API (through the egress proxy):",
		[]string{"run", "-w", ".", "--allow", "api.anthropic.com", "--pass-env", "ANTHROPIC_API_KEY", "--", "claude"}},
	{"See the whole host read-only (credentials masked), write only the repository:",
		[]string{"run", "--view", "host", "-w", ".", "--", "sh"}},
}

// helpWithExamples is kong's help, followed by the worked examples when
// the help is that of `acbox run`.
func helpWithExamples(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	if n := ctx.Selected(); n == nil || n.Name != "run" {
		return nil
	}
	fmt.Fprintln(ctx.Stdout, "\nExamples:")
	for _, e := range runExamples {
		fmt.Fprintf(ctx.Stdout, "  %s\n    $ acbox %s\n", e.What, shellLine(e.Args))
	}
	return nil
}

// shellLine writes args as a shell would read them back.
func shellLine(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += shellQuote(a)
	}
	return out
}

func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=') {
			return "'" + s + "'"
		}
	}
	return s
}
