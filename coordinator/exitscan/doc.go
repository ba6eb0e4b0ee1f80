// Package exitscan checks a sandbox's write grants after the run for what
// outlives it: set-id programs, programs with file capabilities and device
// nodes the member left behind. A persisted home (--home) and a read-write
// runtime mount (--mount SRC:DST:rw) outlive the run as a write grant
// does, and are walked as one (policy.Plan.ScanRoots; a read-write file
// mount is looked at as one entry, policy.Plan.ScanFiles); "write grant"
// below means all of them.
//
// After every launch that got as far as starting the member (a normal
// exit, a failed launch, a signal to acbox), once every process of the
// sandbox has ended, the launcher calls [Scan.Finish], which walks every
// write grant of the plan and
//
//   - removes the set-id bits of every regular set-id file that appeared
//     or changed there during the run (its ctime is at or after the
//     launch): the seccomp policy refuses making one, but the kernel keeps
//     the bits of a file rewritten through a shared mapping, and a hard
//     link to a set-id file already in the grant is no new mode at all.
//     Each other name of a cleared inode is named too;
//   - removes the file capabilities (security.capability) of every regular
//     file that carries them and whose ctime is at or after the launch,
//     for the same reasons: the kernel drops them on write, truncate and
//     chown, not on a write through a shared mapping, and a hard link or a
//     rename is a new name. As a user, without CAP_SETFCAP, it chowns a
//     file it owns to its own owner and group, which drops them;
//   - names on standard error each of those and each new device node;
//   - names what it could not check or undo (a directory it cannot open,
//     one deeper than 1000 levels, a set-id file or a file with
//     capabilities it may not change, a walk cut short after [Cap]
//     entries). Finish then returns an error of class
//     policy.ErrUnchecked: acbox exits 124 (policy.ExitUnchecked), telling
//     the user to inspect those paths before anyone runs what is in them.
//
// A directory the walk cannot open is not skipped quietly (a member could
// hide a set-id file under a `chmod 000` directory): one acbox owns gets
// its owner permissions back and is walked; one it does not own, cannot
// search and that predates the launch is skipped (the member, with the
// same credentials, could not have entered it either); anything else is
// named as not checked.
//
// With --report (full), [Begin] also walks the grants before the launch,
// and the report's "exit_scan" section ([ExitScan]) lists what appeared:
// set-id files, device nodes, FIFOs, and symlinks that point outside every
// grant (a later tool that follows one reads or writes elsewhere). Without
// it there is one walk, after the run, which looks only at entries whose
// ctime is at or after the launch. A setgid directory is not a program and
// is not reported: a directory made inside a setgid one inherits the bit.
//
//	s := exitscan.Begin(plan, report) // the plan is final, nothing started
//	out, err := b.Launch(plan, lio)
//	es, serr := s.Finish(os.Stderr)   // every process of the sandbox ended
//	// es goes under "exit_scan" in --report; serr (exit 124) wins
//
// The walk runs only outside the sandbox and never follows a symlink:
// each grant is opened with openat2(RESOLVE_NO_SYMLINKS), every directory
// below relative to its parent with O_NOFOLLOW, every entry judged by
// fstatat(AT_SYMLINK_NOFOLLOW); a symlink's target is judged as written.
// File capabilities are read with getxattrat(AT_SYMLINK_NOFOLLOW) of the
// entry under its open directory (before Linux 6.13, lgetxattr of
// /proc/self/fd/DIRFD/NAME), only for a regular file whose
// ctime is at or after the launch (a file the member did not touch keeps
// any it had; the walk before the run reads none). Its system calls go through package coordinator/sys.
//
// # Limits
//
// Only SIGKILL of acbox skips the scan. Ctime is the only clock the scan
// trusts (the member can set mtime, not ctime, nor the system clock); the
// launch time is taken a second early for the kernel's coarse clock. A
// symlink in a read-write mount is judged against the grants' host paths
// although the member wrote it against the mount's target (report only).
// Elsewhere than Linux every write grant is named as not checked.
package exitscan
