// Package coordinator runs launch specs in sandboxes: it is the launch
// lifecycle of acbox as a library. The command line (cmd/acbox) is the
// kong tree and the wiring around it; a Go program can launch a sandbox
// through a Launcher exactly as `acbox run` does (see the example).
//
// # Collaborators
//
// A Launcher takes what it works with as values:
//   - Host (policy.Host): the user and machine plans are resolved for.
//   - Registry (package coordinator/registry): the per-user record of live
//     sandboxes, which admission counts and ps, stop and gc read.
//   - Backends (backend.Backend): the kinds of sandbox, chosen by the
//     spec's backend name. Each says whether it is available, what a plan
//     asks for that it cannot give (Lacks), which of its sandboxes run
//     outside the registry (Live), and cleans what dead owners left
//     (Cleanup). The launcher switches on no backend name except "auto".
//   - Proxies (ProxyFactory): starts a proxy-mode plan's egress proxy;
//     EgressProxies is package egress on a private Unix socket.
//   - Events (*Events): the JSON lines of --status-fd (started, egress,
//     exited); nil discards them.
//   - Checks: the checks after the run (the exit scan of the write grants
//     and the git-redirect guard), reached through this seam.
//
// # The path of one launch
//
// Launcher.Run takes a Request (a spec, the member's streams, an optional
// narrowing check, whether to report in full) and:
//
//  1. names the sandbox's private run directory StateDir/run/ID (0700),
//     made only when a socket is kept there (the broker's, the proxy's,
//     a backend's own);
//  2. for a delegating spec, starts the broker on a socket there and adds
//     the acbox binary and that socket as runtime mounts;
//  3. turns backend "auto" into "native" when that backend is available,
//     else "docker", and resolves the spec into a plan (policy.Resolve);
//     the plan is not changed after this;
//  4. applies the request's check (a profile's, or the broker's
//     narrowing) and begins the exit scan;
//  5. refuses the plan if its backend lacks anything it asks for (exit
//     125, each lack named), and admits it under the host's cap;
//  6. starts the egress proxy, records the protected git repositories,
//     and holds the signals that would end acbox before its checks
//     (PrimeSignals, for a process that handles no signals itself,
//     catches them while the launch is planned, off its path);
//  7. asks the backend to run the member, handing it the hold's channel
//     (backend.LaunchIO.Signals), so a signal caught before the backend
//     began reaches the member too; once it runs, the entry gets its
//     pid 1 and the started event is emitted;
//  8. after the backend returns, on every way out (the member's exit, a
//     failed launch, a held signal): waits for the sandboxes launched
//     --within it to end and run their own checks (within_end.go), ends
//     the nested children, moves aside git redirects, finishes the exit
//     scan; what could not be checked is exit 124 (policy.ErrUnchecked);
//     then the exited event.
//
// Each step's undo goes on one Cleanup stack (the model is gVisor's
// runsc/container with cleanup.Make), run in reverse on every way out:
// signals released, proxy stopped, registry entry removed, broker
// stopped, run directory removed (with the registry entry, and again by
// the launcher when it made it).
//
// # Nested launches
//
// A member of a delegating sandbox runs `acbox run`, which calls Nested:
// it sends the spec and its standard streams over the broker's socket
// (wire.go has the protocol). The broker knows the requester by the
// socket, never by what it sends, and runs the child through the same
// Launcher with a check that refuses anything wider than the requester or
// deeper than policy.MaxDelegationDepth. The child's events go to the
// requester and to the outer event stream; the signals the requester's
// acbox run catches go to the child's launch (wire_signals.go), which
// passes them on to its member as acbox passes its own on.
//
// # Host commands
//
// Reap, Stop and GC are acbox ps, stop and gc: they reap the entries of
// dead owners, stop a sandbox through pidfds (SIGTERM to its owner, or a
// nested one's own pid 1; a member that ignores it gets SIGKILL of the
// sandbox's pid 1, so that the owner still runs its checks), and ask each
// backend to clean what dead sandboxes left. System calls go through package coordinator/sys.
package coordinator
