// Package initproc is the docker backend's in-container init: the
// process the container runs under docker's own init (pid 1), started by
// the docker backend as `acbox container-init` from the acbox binary
// mounted into the container.
//
// [Run], in order:
//
//  1. makes itself not dumpable (PR_SET_DUMPABLE 0), so that the member,
//     running with the same uid, cannot ptrace it or read its memory; if
//     that fails it refuses to start the member and names the control;
//  2. in proxy mode, relays the egress proxy's Unix socket onto
//     127.0.0.1:3128 inside the container (package bridge);
//  3. catches the signals it will pass on, so that one arriving before the
//     member exists waits for it instead of ending the init;
//  4. asks the start gate once (package coordinator/docker/gate), proving
//     with its one-time token and the identities of what it sees that it
//     runs in the container the parent checked;
//  5. only when the parent released it, runs the member with exactly the
//     released environment and RLIMIT_DATA at the plan's data limit,
//     passes signals on (SIGINT on a terminal too: acbox's terminal is
//     raw then, so a Ctrl-C reaches the member through the container's
//     terminal and sends acbox none), kills the member when the parent is
//     gone, and returns its exit status (128+N for signal N;
//     127 when the command is not found, 126 when it cannot start).
//
// It never runs the member on any other path: every failure before the
// release is an error and the member does not start.
//
//	code, err := initproc.Run(initproc.Config{Gate: sock, Token: tok, Command: argv})
//
// This code runs in every docker sandbox's pid 1 (and Go runs every
// linked package's init there), so the package imports little: bridge,
// the gate protocol, the policy's error classes and coordinator/sys.
//
// # Platforms
//
// Linux only; elsewhere Run refuses (the hardening call does not exist).
package initproc
