package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Result is a probe's verdict.
type Result string

// The verdicts; see the package doc.
const (
	Pass  Result = "pass"
	Fail  Result = "fail"
	Info  Result = "info"
	Skip  Result = "skip"
	Error Result = "error"
)

// Categories of probes.
const (
	Filesystem  = "filesystem"
	Process     = "process"
	Kernel      = "kernel"
	Terminal    = "terminal"
	Network     = "network"
	Information = "information"
	Environment = "environment"
	Resources   = "resources"
	Lifecycle   = "lifecycle"
	Build       = "build" // the binary itself, judged outside any sandbox
)

// Categories lists every category a probe may have.
var Categories = []string{Filesystem, Process, Kernel, Terminal, Network, Information, Environment, Resources, Lifecycle, Build}

// Outcome is what one probe observed.
type Outcome struct {
	Result Result
	Detail string
}

// Probe is one check run inside a sandbox.
type Probe struct {
	ID          string // category-prefixed, unique: "fs.write-usr"
	Category    string
	Expect      string // the observation that passes, one sentence
	Source      string // a CVE, a peer's test, or "acbox design"
	Destructive bool   // only with --all, in a sandbox of its own
	// Needs names a kernel feature (see lacks_linux.go) without which the
	// probe's refusal proves nothing: where the runner found it missing,
	// the probe skips.
	Needs string
	// HostNet probes run only in the runner's --net host sandbox (see
	// hostnet_linux.go), never in the default one.
	HostNet bool
	// Proxy probes run only in the runner's --net proxy sandbox
	// (proxymode_linux.go).
	Proxy bool
	Run   func(*Env) Outcome
	// Docker replaces Expect and Run under the docker backend. Only the
	// probes listed in [Differences] have one: each is a place where the
	// design says the backends differ.
	Docker *Variant
}

// Variant is a probe's expectation under another backend.
type Variant struct {
	Expect string
	Run    func(*Env) Outcome
}

// under returns the probe as it runs under backend ("" is native).
func (p Probe) under(backend string) Probe {
	if backend == Docker && p.Docker != nil {
		p.Expect, p.Run = "docker: "+p.Docker.Expect, p.Docker.Run
	}
	return p
}

// Line is one JSON line of the suite's output.
type Line struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Result   Result `json:"result"`
	Expect   string `json:"expect"`
	Detail   string `json:"detail"`
	Source   string `json:"source"`
}

// Selection chooses the probes Run runs and gives them the runner's fixture.
// The zero value runs every non-destructive probe with an empty Env.
type Selection struct {
	Env         Env
	Destructive bool     // include the destructive probes
	Only        []string // run only these IDs (destructive or not)
}

// Timeout bounds one probe; a probe that hangs reports error.
var Timeout = 15 * time.Second

// Catalogue returns every probe, in a stable order.
func Catalogue() []Probe { return catalogue() }

// Run runs the selected probes in order and writes one JSON line per probe.
// It returns the number of fail and error results.
func Run(w io.Writer, sel Selection) int {
	bad := 0
	enc := json.NewEncoder(w)
	for _, p := range Catalogue() {
		if !sel.wants(p) {
			continue
		}
		p = p.under(sel.Env.Backend)
		l := p.line(runOne(p, &sel.Env))
		if l.Result == Fail || l.Result == Error {
			bad++
		}
		enc.Encode(l)
	}
	return bad
}

func (s Selection) wants(p Probe) bool {
	if len(s.Only) > 0 {
		return slices.Contains(s.Only, p.ID)
	}
	return !p.HostNet && !p.Proxy && (s.Destructive || !p.Destructive)
}

func (p Probe) line(o Outcome) Line {
	return Line{ID: p.ID, Category: p.Category, Result: o.Result, Expect: p.Expect, Detail: o.Detail, Source: p.Source}
}

// runOne runs a probe with a timeout and turns a panic into an error.
func runOne(p Probe, env *Env) Outcome {
	if p.Needs != "" && slices.Contains(env.Lacks, p.Needs) {
		return skipf("this kernel lacks %s (checked outside the sandbox): the call fails without any sandbox, so its refusal here proves nothing", p.Needs)
	}
	ch := make(chan Outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- errorf("probe panicked: %v", r)
			}
		}()
		ch <- p.Run(env)
	}()
	select {
	case o := <-ch:
		return o
	case <-time.After(Timeout):
		return errorf("probe did not finish within %v", Timeout)
	}
}

func passf(f string, a ...any) Outcome  { return Outcome{Pass, fmt.Sprintf(f, a...)} }
func failf(f string, a ...any) Outcome  { return Outcome{Fail, fmt.Sprintf(f, a...)} }
func infof(f string, a ...any) Outcome  { return Outcome{Info, fmt.Sprintf(f, a...)} }
func skipf(f string, a ...any) Outcome  { return Outcome{Skip, fmt.Sprintf(f, a...)} }
func errorf(f string, a ...any) Outcome { return Outcome{Error, fmt.Sprintf(f, a...)} }

// worst combines outcomes: fail over error over pass; details are joined.
func worst(os ...Outcome) Outcome {
	rank := map[Result]int{Fail: 5, Error: 4, Pass: 3, Info: 2, Skip: 1}
	out := Outcome{Result: Skip}
	var details []string
	for _, o := range os {
		if rank[o.Result] > rank[out.Result] {
			out.Result = o.Result
		}
		details = append(details, o.Detail)
	}
	out.Detail = join(details)
	return out
}

func join(parts []string) string {
	s := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if s != "" {
			s += "; "
		}
		s += p
	}
	return s
}
