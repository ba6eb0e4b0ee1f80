// Package registry is acbox's record of the live sandboxes of one user on
// one host, kept in the user's state directory:
//
//	StateDir/registry.lock        flock(2) held while the registry changes
//	StateDir/sandboxes/<id>.json  one Entry per live sandbox (0600)
//	StateDir/queue/<seq>-<n>.json one ticket per launch waiting for a slot
//	StateDir/run/<id>/            a sandbox's private run directory
//
// The state directory must be the user's own and closed to others (0700):
// OpenRegistry refuses anything else, because an entry another user could
// write would be trusted for admission, stop and --within. Files in it are
// read as regular files only, bounded, without following links.
//
// An Entry names its owner (the acbox process running the sandbox) by pid,
// start time and pid namespace, so a reused pid is never mistaken for it;
// Reap removes the entries of dead owners, Sweep their run directories.
// Admission (Admit, AdmitCounting, TryAdmit) registers a sandbox only while
// the user's live sandboxes are under the cap (ComputeCap: host memory over
// the per-sandbox memory limit, or the config's max_sandboxes), counting
// sandboxes other backends report that the registry does not list; the
// queue (Enqueue) serves waiters first come, first served.
//
// The package decides nothing about what a sandbox may do (that is
// package coordinator/policy) and starts nothing (package coordinator).
// Its system calls go through package coordinator/sys.
package registry
