// Package dirents reads directories with getdents64 into one reused buffer
// and hands each entry's name to a callback as a slice of that buffer: no
// allocation per entry, unlike os.ReadDir (a DirEntry, a name string and a
// sorted slice per directory). The walks of a write grant (the repository
// search in coordinator/policy, the exit scan in coordinator/exitscan) read
// up to 20,000 directories per launch with it.
//
// A directory's raw records can be kept ([Reader.Each]'s keep) and walked
// again later with [Parse]: the repository search keeps what it read so the
// exit scan's walk before the run need not read the same directories again
// a few milliseconds later (policy.Listings).
//
// Linux only (dirents_linux.go); other systems use os.ReadDir.
package dirents
