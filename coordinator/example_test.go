package coordinator_test

import (
	"context"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/docker"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
	"github.com/acbox/acbox/nsjail"
)

// A Go program launches a sandbox the way `acbox run -w . -- make test`
// does. A program that uses the native backend must also start with
// `if nsjail.IsHelper() { nsjail.HelperMain() }` in main: the sandbox's
// pid 1 is the program itself, re-executed. The CLI also sets Checks to
// the exit scan and the git-redirect guard.
func Example() {
	host, err := policy.HostFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(policy.ExitCode(err))
	}
	reg, err := registry.OpenRegistry(host.StateDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(policy.ExitCode(err))
	}
	l := &coordinator.Launcher{
		Host:     host,
		Registry: reg,
		Backends: []backend.Backend{nsjail.Backend{}, docker.Backend{}},
		Proxies:  coordinator.EgressProxies{},
		Events:   coordinator.NewEvents(os.Stderr),
	}
	spec := policy.Spec{
		Command: []string{"make", "test"},
		Access:  policy.Access{Write: []string{"."}},
	}
	res, err := l.Run(context.Background(), coordinator.Request{
		Spec:  spec,
		Stdio: coordinator.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "acbox:", err)
		os.Exit(policy.ExitCode(err))
	}
	os.Exit(res.Code)
}
