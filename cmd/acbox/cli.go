package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/policy"
)

// CLI is the command tree; one file per command.
type CLI struct {
	Run      RunCmd      `cmd:"" help:"Run a command in a sandbox."`
	Plan     PlanCmd     `cmd:"" help:"Print the resolved plan as JSON without running anything."`
	Status   StatusCmd   `cmd:"" help:"Report whether each backend can run here, and if not, the fix."`
	Version  VersionCmd  `cmd:"" help:"Print the build and policy digest."`
	Selftest SelftestCmd `cmd:"" help:"Run the escape suite against this host; exits non-zero if anything escapes."`
	Probe    ProbeCmd    `cmd:"" hidden:"" help:"Run the escape suite's probes (inside a sandbox; started by selftest)."`
	Doctor   DoctorCmd   `cmd:"" help:"Check each host requirement and print the remedy for each failure."`
	Proxy    ProxyCmd    `cmd:"" help:"Run the egress proxy on its own, on a Unix socket."`
	Ps       PsCmd       `cmd:"" help:"List the live sandboxes on this host."`
	Stop     StopCmd     `cmd:"" help:"Stop a sandbox and all its processes (SIGTERM, then SIGKILL of the sandbox after a grace period; its checks after the run still run)."`
	Gc       GcCmd       `cmd:"" name:"gc" help:"Remove what dead sandboxes left behind: registry entries, runtime directories, cgroups."`
	Profile  ProfileCmd  `cmd:"" help:"List or show the saved launch profiles."`
	Home     HomeCmd     `cmd:"" help:"List or remove the persisted homes of run --home."`
	Image    ImageCmd    `cmd:"" help:"Build the docker backend's default image."`

	ContainerInit ContainerInitCmd `cmd:"" name:"container-init" hidden:"" help:"The docker backend's in-container init (started by the docker backend)."`
}

// Streams are the process's standard streams, injected for tests.
type Streams struct {
	In       *os.File
	Out, Err io.Writer
	// status is run's --status-fd stream once opened; the refused event
	// goes there (refused.go).
	status *coordinator.Events
}

// exitError carries a member's exit status through kong.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// runOnly is the command tree of `acbox run` alone. Building kong's model
// of the whole CLI takes about 1.5 ms, on every launch; `run` is the hot
// path, so Main builds only what it needs, and only when the argument list
// is one parseRunFast leaves to kong. Flags, help and errors of `run` are
// the same either way.
type runOnly struct {
	Run RunCmd `cmd:"" help:"Run a command in a sandbox."`
}

// Main parses args, runs the command and returns the exit status.
func Main(args []string, in *os.File, out, errw io.Writer) int {
	// acbox's messages name paths and commands a member may have chosen:
	// each is quoted where it is named (policy.Quote), and every control
	// or format character left is escaped on the way out.
	errw = policy.MessageWriter(errw)
	if len(args) > 0 && args[0] == "run" {
		if c, ok := parseRunFast(args); ok { // runfast.go
			streams := &Streams{In: in, Out: out, Err: errw}
			return report(c.Run(streams), streams, args)
		}
		return parseAndRun(&runOnly{}, args, in, out, errw)
	}
	return parseAndRun(&CLI{}, args, in, out, errw)
}

func parseAndRun(cli any, args []string, in *os.File, out, errw io.Writer) int {
	code := -1
	streams := &Streams{In: in, Out: out, Err: errw}
	opts := append(parseOptions(),
		kong.Name("acbox"),
		kong.Description("Run a command with only the access it was granted."),
		kong.Writers(out, errw),
		kong.Exit(func(c int) { code = c }),
		kong.UsageOnError(),
		kong.Bind(streams),
		kong.Bind(hostBackends()),
	)
	parser, err := kong.New(cli, opts...)
	if err != nil {
		fmt.Fprintln(errw, "acbox:", err)
		return 1
	}
	ctx, err := parser.Parse(args)
	if code >= 0 {
		return code
	}
	if err == nil {
		err = onlyOnce(ctx)
	}
	if err != nil {
		fmt.Fprintln(errw, "acbox:", err)
		streams.refused(args, policy.ExitUsage, err.Error(), err)
		return policy.ExitUsage
	}
	return report(ctx.Run(), streams, args)
}

// report prints err and returns the exit status: the member's own, or
// acbox's for err, which the refused event carries too.
func report(err error, s *Streams, args []string) int {
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var st interface{ ExitStatus() int } // a launch given up on a signal
	if errors.As(err, &st) {
		fmt.Fprintln(s.Err, "acbox:", err)
		return st.ExitStatus()
	}
	if err == nil {
		return 0
	}
	msg, code := err.Error(), policy.ExitCode(err)
	var be *coordinator.BrokerError
	if errors.As(err, &be) {
		msg, code = be.Msg, be.Code
	}
	fmt.Fprintln(s.Err, "acbox:", msg)
	s.refused(args, code, msg, err)
	return code
}
