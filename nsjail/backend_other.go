//go:build !linux

package nsjail

import (
	"context"
	"fmt"
	"os"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Off Linux the native backend exists so that the tree builds and vets (on
// macOS, say), and says that it cannot run: it needs Linux namespaces,
// Landlock and seccomp.
const (
	needsLinux = "the native backend needs Linux"
	useDocker  = "run acbox on a Linux host (the docker backend needs Linux too)"
)

var errNeedsLinux = fmt.Errorf("%w: %s; %s", policy.ErrCannotSandbox, needsLinux, useDocker)

// Backend is the native backend; off Linux it is never available.
type Backend struct{}

// Name implements backend.Backend.
func (Backend) Name() string { return "native" }

// Available implements backend.Backend: never, off Linux.
func (Backend) Available(ctx context.Context) backend.Availability {
	return backend.Availability{Backend: "native", Why: needsLinux, Remedy: useDocker}
}

// Lacks implements backend.Backend: everything, off Linux.
func (Backend) Lacks(p *policy.Plan) []string { return []string{needsLinux + "; " + useDocker} }

// Live implements backend.Backend: there are none.
func (Backend) Live(ctx context.Context) ([]string, error) { return nil, nil }

// Cleanup implements backend.Backend: there is nothing to clean.
func (Backend) Cleanup(ctx context.Context, live func(id string) bool) ([]string, error) {
	return nil, nil
}

// Launch implements backend.Backend: it refuses.
func (Backend) Launch(p *policy.Plan, io backend.LaunchIO) (*backend.Outcome, error) {
	return nil, errNeedsLinux
}

// Options mirrors the Linux launch options.
type Options struct {
	Stdin, Stdout, Stderr *os.File
	Exe, ID, ProxySocket  string
	OnReady               func(backend.Started)
}

// Launch refuses: the native backend needs Linux.
func Launch(p *policy.Plan, o Options) (*backend.Outcome, error) { return nil, errNeedsLinux }

// IsHelper is false: no process is the native sandbox's pid 1 off Linux.
func IsHelper() bool { return false }

// HelperMain is never reached off Linux (IsHelper is false).
func HelperMain() {
	fmt.Fprintln(os.Stderr, "acbox: "+needsLinux)
	os.Exit(policy.ExitCannotSandbox)
}

// Expect is nil: no control can be expected of a backend that cannot run.
func Expect(p *policy.Plan) *policy.Report { return nil }

// RemoveCgroups, SweepCgroups: there are no cgroups off Linux.
func RemoveCgroups(id string) []string                { return nil }
func SweepCgroups(live func(id string) bool) []string { return nil }

// ProbeCgroup says that there are no cgroups off Linux.
func ProbeCgroup() (mode, why string) { return "", "cgroups need Linux" }

// CgroupLeaves is 0 off Linux.
func CgroupLeaves() int { return 0 }

// Expect implements backend.Expecter: nil, as the function.
func (Backend) Expect(p *policy.Plan) *policy.Report { return nil }

// IsIPCChild is false: the native backend is Linux only.
func IsIPCChild() bool { return false }

// IPCChildMain is never reached where IsIPCChild is false.
func IPCChildMain() {}
