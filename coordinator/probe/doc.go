// Package probe is acbox's escape suite: a catalogue of probes that run
// inside a sandbox and try, each in one small way, to reach something the
// plan did not grant; the fixtures and oracles that a runner outside the
// sandbox sets up and reads back; and the lifecycle scenarios that can only
// be judged from outside (death with the parent, exit status, signals,
// leftovers, swapped grants); and one line on the binary itself
// ([PolicyPin]: the policy digest it reports is the one it computes).
//
// `acbox selftest` is the usual entry point. It creates a fixture, starts a
// sandbox whose member is the acbox binary itself, mounted read-only at
// /.acbox/acbox and run as the hidden `acbox probe` command, and joins the
// probes' JSON lines with the outside oracles:
//
//	fx, err := probe.NewFixture()             // canaries, listeners, IPC keys
//	defer fx.Close()
//	lines, err := probe.RunInside(exe, fx, probe.Selection{})
//	lines = append(lines, fx.Oracles()...)     // accept counts, canaries unchanged
//	lines = append(lines, probe.Lifecycle(exe, fx)...)
//
// Inside, [Run] writes one JSON object per probe:
//
//	{"id":"fs.write-usr","category":"filesystem","result":"pass",
//	 "expect":"creating a file under /usr fails","detail":"EROFS","source":"acbox design"}
//
// # Backends
//
// With `acbox selftest --backend docker` the runner launches the same
// probes through the docker backend, which binds the binary at the same
// path as the container's init, and tells them so (`--backend docker`).
// The probes listed in [Differences] then run their docker variant, each
// for a reason the design gives (docs/backends.md); every other probe
// holds both backends to one expectation.
//
// # Results
//
// pass: the observation the probe expects (Expect) was made. fail: it was
// not, and Detail says what happened instead; every fail is a finding.
// info: an observation worth recording that is not a verdict. skip: the host
// lacks what the probe needs (a kernel feature, a setuid binary, a non-root
// caller); a missing feature is never a pass. error: the probe itself could
// not run.
//
// A probe tells "refused by the sandbox" from "it did not exist anyway"
// wherever it can: every canary is created outside by the runner and named
// to the probe by an argument, so ENOENT inside means hidden, not absent; and
// syscall probes expect the errno acbox's seccomp policy returns, so a
// different errno says the call reached the kernel.
//
// # Destructive probes
//
// Probes marked Destructive (fork bomb, memory, tmpfs fill, descriptors,
// output flood, killing pid 1) run only with `acbox selftest --all`, each in
// a sandbox of its own with tight limits and a watchdog.
//
// # Limits
//
// The suite tests what this host's kernel does today; it proves nothing
// about other kernels or configurations, and a pass means "engages as
// tested", never "cannot be bypassed". No probe sends a packet beyond
// loopback: the DNS probe runs only after it has seen that the sandbox has
// no interface but lo, and the routing probe uses connect on a UDP socket,
// which sends nothing.
//
// The probes are Linux-only; elsewhere the catalogue is empty and the
// runner and fixture refuse (suite_other.go), so acbox builds on macOS.
package probe
