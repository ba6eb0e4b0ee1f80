// Package homes keeps acbox's persisted homes: the directories that
// `acbox run --home NAME` mounts read-write at the member's home instead of
// the private tmpfs, so that caches (Go's build cache, pip's, npm's)
// survive from one run to the next.
//
// A home is ~/.local/state/acbox/homes/NAME (policy.HomesDir), made 0700
// and owned by the user, in a directory made the same way. Every launch
// masks that state directory and refuses it as a grant, so only the runs
// that name the home see it.
//
//	release, err := homes.Acquire(plan.PersistedHome, uid)
//	if err != nil {
//		return err // refused: a symlink, not owned, 0755, in use, over quota
//	}
//	defer release() // after the checks after the run
//
// # What Acquire checks
//
// The homes directory is opened without following any symlink
// (RESOLVE_NO_SYMLINKS: the path is canonical) and must be a directory
// owned by the user with no group or other permission; the home is made
// in it if missing and opened O_NOFOLLOW through that descriptor, so a
// symlink planted as the home refuses the launch, and must pass the same
// owner and mode check (a home the member made 0777 refuses the next run
// until the user runs chmod 700). Then it is locked (flock, LOCK_EX, not
// waiting): one run per home at a time; a second is refused while the
// first runs and until its checks after the run are done. Last, its
// usage is measured and a home holding more than [Quota] bytes or
// [MaxEntries] entries is refused with the remedy.
//
// # Limits
//
// The quota is checked when a run starts; during the run only the file
// system holding the state directory bounds what the member writes.
// Processes of the user outside any sandbox are trusted: between Acquire
// and the backend's own hold of the path (coordinator/pin) such a process
// could swap the directory. List and Remove never follow a link.
package homes
