package main

import (
	"context"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/acbox/acbox/coordinator"
	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// LaunchFlags are the flags shared by `run` and `plan`; they build the same
// Spec the JSON launch spec does.
type LaunchFlags struct {
	Read        []string `short:"r" placeholder:"DIR" help:"Grant DIR read-only (repeatable)."`
	Write       []string `short:"w" placeholder:"DIR" help:"Grant DIR read-write (repeatable)."`
	Cwd         string   `placeholder:"DIR" help:"Working directory; must lie inside a grant (default: the current directory when granted, else the private home)."`
	Allow       []string `placeholder:"HOST[:PORT]" help:"Allow HOST through the egress proxy (repeatable; implies --net proxy). *.HOST allows subdomains."`
	Net         string   `placeholder:"MODE" help:"Network: none (default), proxy or host."`
	ConnectPort []uint16 `placeholder:"PORT" help:"With --net host: TCP ports the member may connect to."`
	BindPort    []uint16 `placeholder:"PORT" help:"With --net host: TCP ports the member may bind."`
	Backend     string   `default:"native" help:"Backend: native, docker or auto."`
	Image       string   `help:"Image for the docker backend."`
	TTY         *bool    `name:"tty" negatable:"" help:"Give the member a private terminal (default: when stdin is a terminal)."`
	Env         []string `placeholder:"K=V" help:"Set an environment variable inside (repeatable)."`
	PassEnv     []string `placeholder:"K" help:"Pass a variable from this environment (repeatable)."`
	Mount       []string `placeholder:"SRC:DST[:ro|rw]" help:"Trusted runtime mount of a file, directory or socket (default ro)."`
	Tmpfs       []string `placeholder:"PATH[:SIZE]" help:"Extra private tmpfs (default size 64MiB)."`
	Home        string   `placeholder:"NAME" help:"Persisted home: mount ~/.local/state/acbox/homes/NAME (made if missing) read-write at the home instead of the private tmpfs; what one run leaves there, the next run with NAME reads."`
	Memory      string   `help:"Memory limit, e.g. 2GiB."`
	Pids        int      `help:"Process limit."`
	BestEffort  bool     `help:"Run even when a requested control cannot be enforced; the report lists what is missing."`
	Spec        string   `placeholder:"FILE|-" help:"Read the whole launch as JSON (flags add to it)."`
	View        string   `placeholder:"VIEW" help:"What the sandbox sees: grants (default: system directories and grants) or host (the whole host read-only, credentials masked)."`
	Exclude     []string `placeholder:"PATH" help:"Mask PATH inside the sandbox, as the built-in credential paths are (repeatable)."`
	Protect     []string `placeholder:"REL" help:"Keep REL (relative to each write grant) read-only, besides the built-in .git/hooks and .git/config (repeatable)."`
	Unprotect   []string `placeholder:"REL" help:"Drop a built-in read-only carve-out of write grants: .git/hooks, .git/config, .git or hookspath (repeatable)."`
	Profile     string   `placeholder:"NAME" help:"Start from the saved profile ~/.config/acbox/profiles/NAME.json (flags add to it)."`
	Within      string   `placeholder:"ID" help:"Launch only if narrower than the live sandbox ID (as its broker would launch it); the child is stopped with ID."`
	AdmissionFlags
	Command []string `arg:"" optional:"" passthrough:"partial" help:"Command and arguments, after --."`
}

// spec builds the launch spec from --profile or --spec, and the flags.
func (f *LaunchFlags) spec(in *os.File, h policy.Host) (policy.Spec, *policy.Profile, error) {
	if f.Profile != "" {
		return f.fromProfile(h)
	}
	s, err := f.specOnly(in)
	return s, nil, err
}

func (f *LaunchFlags) specOnly(in *os.File) (policy.Spec, error) {
	var s policy.Spec
	if f.Spec != "" {
		var err error
		if s, err = readSpec(f.Spec, in); err != nil {
			return s, err
		}
	}
	if err := f.apply(&s); err != nil {
		return s, err
	}
	return s, nil
}

func readSpec(name string, in *os.File) (policy.Spec, error) {
	if name == "-" {
		return policy.ReadSpecLine(in)
	}
	fh, err := os.Open(name)
	if err != nil {
		return policy.Spec{}, policy.Invalid("--spec %s cannot be read (%v): name a JSON launch spec, or - for standard input", name, cause(err))
	}
	defer fh.Close()
	return policy.ParseSpec(fh)
}

func (f *LaunchFlags) apply(s *policy.Spec) error {
	s.Access.Read = append(s.Access.Read, f.Read...)
	s.Access.Write = append(s.Access.Write, f.Write...)
	cmd := f.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) > 0 {
		s.Command = cmd
	}
	if f.Cwd != "" {
		s.Cwd = f.Cwd
	}
	if f.Backend != "native" || s.Backend == "" {
		s.Backend = f.Backend
	}
	if f.Image != "" {
		s.Image = f.Image
	}
	f.applyNetwork(&s.Access.Network)
	if err := f.applyMounts(s); err != nil {
		return err
	}
	if err := f.applyEnv(s); err != nil {
		return err
	}
	if f.Memory != "" {
		s.Limits.Memory = f.Memory
	}
	if f.Pids != 0 {
		s.Limits.Pids = f.Pids
	}
	s.BestEffort = s.BestEffort || f.BestEffort
	s.TTY = f.tty(s.TTY)
	if f.View != "" {
		s.View = f.View
	}
	s.Exclude = append(s.Exclude, f.Exclude...)
	s.Protect = append(s.Protect, f.Protect...)
	s.Unprotect = append(s.Unprotect, f.Unprotect...)
	if f.Home != "" {
		s.Home = f.Home
	}
	if f.Within != "" {
		s.Within = f.Within
	}
	return f.applyAdmission(s)
}

func (f *LaunchFlags) applyNetwork(n *policy.NetworkSpec) {
	if f.Net != "" {
		n.Mode = f.Net
	}
	if len(f.Allow) > 0 {
		list := []string{}
		if n.Allow != nil {
			list = append(list, *n.Allow...)
		}
		list = append(list, f.Allow...)
		n.Allow = &list
	}
	n.ConnectPorts = append(n.ConnectPorts, f.ConnectPort...)
	n.BindPorts = append(n.BindPorts, f.BindPort...)
}

func (f *LaunchFlags) applyMounts(s *policy.Spec) error {
	for _, m := range f.Mount {
		ms, err := policy.ParseMountFlag(m)
		if err != nil {
			return err
		}
		s.Mounts = append(s.Mounts, ms)
	}
	for _, t := range f.Tmpfs {
		ts, err := policy.ParseTmpfsFlag(t)
		if err != nil {
			return err
		}
		s.Tmpfs = append(s.Tmpfs, ts)
	}
	return nil
}

func (f *LaunchFlags) applyEnv(s *policy.Spec) error {
	for _, kv := range f.Env {
		k, v, err := policy.ParseEnvFlag(kv)
		if err != nil {
			return err
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	s.PassEnv = append(s.PassEnv, f.PassEnv...)
	return nil
}

// tty: an explicit flag wins, then the spec, then "is stdin a terminal".
func (f *LaunchFlags) tty(fromSpec bool) bool {
	if f.TTY != nil {
		return *f.TTY
	}
	if fromSpec || f.Spec != "" {
		return fromSpec
	}
	return term.IsTerminal(int(os.Stdin.Fd()))
}

// resolve builds the plan for these flags on this host. A profile inside a
// write grant of the resulting plan is refused (see policy.Profile); the
// plan's notices go to errw.
func (f *LaunchFlags) resolve(in *os.File, errw io.Writer) (*policy.Plan, policy.Host, error) {
	h, err := policy.HostFromEnv()
	if err != nil {
		return nil, h, err
	}
	s, prof, err := f.spec(in, h)
	if err != nil {
		return nil, h, err
	}
	// The plan a launch would run: nothing started, and no registry unless
	// the plan is held within a live sandbox (which the registry names).
	l := coordinator.Launcher{Host: h, Backends: backends()}
	if s.Within != "" {
		if l.Registry, err = registry.OpenRegistry(h.StateDir); err != nil {
			return nil, h, err
		}
	}
	p, err := l.Resolve(context.Background(), s, noticeCheck(s, h, prof, errw))
	if err != nil {
		return nil, h, err
	}
	return p, h, nil
}
