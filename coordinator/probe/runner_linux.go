package probe

import (
	"bufio"
	"encoding/json"
	"io"
	"os"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// Inside runs the non-destructive probes in one sandbox.
func (r *Runner) Inside() ([]Line, error) {
	return r.run(nil, Selection{})
}

// Destructive runs each destructive probe in a sandbox of its own, with
// low limits and a small scratch tmpfs.
func (r *Runner) Destructive() ([]Line, error) {
	var out []Line
	for _, p := range Catalogue() {
		if !p.Destructive {
			continue
		}
		limit := func(s *policy.Spec) {
			s.Limits = policy.LimitsSpec{Memory: DestructiveMemory, Pids: DestructivePids}
			s.Tmpfs = append(s.Tmpfs, policy.TmpfsSpec{Target: ScratchDir, Size: ScratchSize})
		}
		lines, err := r.run(limit, Selection{Only: []string{p.ID}})
		if err != nil {
			return out, err
		}
		out = append(out, lines...)
	}
	return out, nil
}

// Spec is the launch spec of a probe sandbox; probe flags follow cmd.
func (r *Runner) Spec(cmd ...string) policy.Spec {
	s := policy.Spec{
		Backend: r.backend().Name(),
		Command: append([]string{MemberPath}, cmd...),
		Cwd:     r.Fixture.Write,
		Access:  policy.Access{Write: []string{r.Fixture.Write}, Read: []string{r.Fixture.Read}},
	}
	if r.docker() {
		// The backend binds this binary at MemberPath (its InitPath) already.
		s.Image = r.Image
		return s
	}
	s.Mounts = []policy.MountSpec{{Source: r.Exe, Target: MemberPath, Internal: true}}
	return s
}

// The docker backend's own mount points, which its plan does not list:
// the directory of its binds (acbox's init, the start gate, the proxy
// socket), and docker's init, which `--init` binds at a fixed path.
const (
	DockerOwn  = "/.acbox"
	DockerInit = "/sbin/docker-init"
)

// PlanMounts lists the mount points a plan creates, for info.mountinfo.
// Under docker the system directories are the image's, not mounts.
func PlanMounts(p *policy.Plan) []string {
	var out []string
	if p.Backend == Docker {
		out = append(out, DockerOwn, DockerInit)
	} else {
		for _, s := range p.System {
			out = append(out, s.Path)
		}
	}
	for _, g := range p.Grants {
		out = append(out, g.Path)
	}
	for _, m := range p.Mounts {
		out = append(out, m.Target)
	}
	for _, t := range p.Tmpfs {
		out = append(out, t.Target)
	}
	return out
}

func (r *Runner) plan(adjust func(*policy.Spec), sel Selection) (*policy.Plan, error) {
	h, err := policy.HostFromEnv()
	if err != nil {
		return nil, err
	}
	spec := r.Spec("probe")
	if adjust != nil {
		adjust(&spec)
	}
	first, err := policy.Resolve(spec, h)
	if err != nil {
		return nil, err
	}
	env := r.Fixture.Env(PlanMounts(first))
	if r.docker() {
		env.Backend = Docker
	}
	args := append([]string{"probe"}, env.Args()...)
	for _, id := range sel.Only {
		args = append(args, "--only="+id)
	}
	spec.Command = append([]string{MemberPath}, args...)
	return policy.Resolve(spec, h)
}

func (r *Runner) run(adjust func(*policy.Spec), sel Selection) ([]Line, error) {
	plan, err := r.plan(adjust, sel)
	if err != nil {
		return nil, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	stderr := r.Stderr
	if stderr == nil {
		stderr = null
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	got := make(chan []Line, 1)
	go func() { got <- readLines(pr); pr.Close() }()
	onReady, stop := r.watchdog()
	res, err := r.backend().Launch(plan, backend.LaunchIO{Stdin: null, Stdout: pw, Stderr: stderr, OnReady: onReady})
	stop()
	pw.Close()
	lines := <-got
	if err != nil {
		return nil, err
	}
	return r.complete(lines, sel, res), nil
}

// readLines keeps the JSON probe lines and drops anything else (a flood).
func readLines(rd io.Reader) []Line {
	var out []Line
	br := bufio.NewReaderSize(rd, 64<<10)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 && b[0] == '{' {
			var l Line
			if json.Unmarshal(b, &l) == nil && l.ID != "" {
				out = append(out, l)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return out
		}
	}
}

// complete adds a line for every selected probe that did not report: the
// sandbox ended first (a destructive probe that killed it) or never ran it.
func (r *Runner) complete(lines []Line, sel Selection, res *backend.Outcome) []Line {
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l.ID] = true
	}
	for _, p := range Catalogue() {
		if !sel.wants(p) || seen[p.ID] {
			continue
		}
		if r.docker() {
			p = p.under(Docker)
		}
		o := errorf("no result: the sandbox ended (status %d) before the probe reported", res.Code)
		if p.Destructive {
			o.Result = Fail
		}
		lines = append(lines, p.line(o))
	}
	return lines
}
