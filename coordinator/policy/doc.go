// Package coordinator turns a launch request into a Plan: the one immutable
// value that every later stage of acbox reads.
//
// A request arrives as a [Spec] (from command-line flags or the JSON launch
// spec). [Resolve] checks every grant against the host and the refused list,
// fills in the fixed environment and the private mounts, and returns a [Plan].
// Backends (package nsjail for the native backend, package docker for
// containers) receive the plan and nothing else.
//
//	spec := coordinator.Spec{
//		Command: []string{"make", "test"},
//		Cwd:     "/home/u/proj",
//		Access:  coordinator.Access{Write: []string{"/home/u/proj"}},
//	}
//	plan, err := coordinator.Resolve(spec, coordinator.HostFromEnv())
//
// # Grants
//
// A grant is a directory that must exist, be canonical (equal to its real
// path, with no symlink anywhere in it) and not be refused. The refused list
// holds "/", the user's home and its parents, /tmp, /run, /var/run, anything
// under /proc, /dev and /sys, acbox's own state directory and the paths the
// user made private (config key "private", or ACBOX_PRIVATE, colon separated;
// the spec's "private" adds more for one launch).
// A grant that contains or sits inside a private path is refused too.
// Write implies read. Errors say what was refused and what to grant instead.
//
// # What this package does not do
//
// It opens no file descriptors for mounting and makes no syscalls beyond
// stat and readlink: binding grants by file descriptor, so that a symlink
// swapped in after the checks cannot redirect a mount, is the backend's job.
package policy
