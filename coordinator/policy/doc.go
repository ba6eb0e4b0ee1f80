// Package policy turns a launch request into a Plan: the one immutable
// value that every later stage of acbox reads.
//
// A request arrives as a [Spec] (from command-line flags or the JSON launch
// spec). [Resolve] checks every grant against the host and the refused list,
// fills in the fixed environment and the private mounts, and returns a [Plan].
// Backends (package nsjail for the native backend, package
// coordinator/docker for containers) receive the plan and nothing else; the
// launcher (package coordinator) chooses the backend before resolving, so
// Spec.Backend is a concrete name here ("auto" is refused), and nothing
// writes into a plan after Resolve. ExampleResolve shows the call.
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
// # Beyond grants
//
// Views and masks (view*.go), write-grant carve-outs (protect*.go, with a
// reader of git's config format for core.hooksPath), profiles (profile*.go),
// the narrowing of nested launches (narrow.go), tmpfs and memory budgets
// (budget.go), the enforcement report (report.go), strict JSON decoding
// (jsonstrict.go), the error classes and exit statuses (errors.go), how
// a name a member chose is shown to a person (shown.go: [Quote]), the
// host-wide /proc entries every sandbox hides (procmask.go) and the
// policy fingerprint (fingerprint.go).
//
// # What this package does not do
//
// It changes nothing on the host. It reads: stat and readlink of the paths
// it judges, the user's config file and profiles, git config files for
// core.hooksPath, and the host's memory (sysinfo). It opens no descriptor
// for mounting: binding grants by descriptor, so that a symlink swapped in
// after the checks cannot redirect a mount, is the backend's job (package
// coordinator/pin).
package policy
