package policy

// Listings are the directory listings the repository search read in the
// write grants (protect_search_linux.go), as getdents64 records by path, so
// that the exit scan's walk before the run (--report), which follows right
// after Resolve, need not read the same directories again: on a grant near
// the search's 20,000-directory limit that second read was a third of the
// launch. The exit scan still opens a listed directory for whatever needs
// a stat or a readlink, and reads every directory the search did not
// (deeper than it goes, .git, node_modules, another grant's view); the walk
// after the run never uses them.
type Listings struct {
	dirs  map[string][]byte
	bytes int
}

// listingsBudget bounds the bytes of records kept for one plan (a
// directory of a million entries is read by the exit scan itself).
const listingsBudget = 8 << 20

// keep records dir's raw records; false once the budget is spent.
func (l *Listings) keep(dir string, recs []byte) bool {
	if l.bytes+len(recs) > listingsBudget {
		return false
	}
	if l.dirs == nil {
		l.dirs = map[string][]byte{}
	}
	l.dirs[dir] = recs
	l.bytes += len(recs)
	return true
}

// Dir returns dir's records (dirents.Parse reads them), if the search read
// it. A nil l has none.
func (l *Listings) Dir(dir string) ([]byte, bool) {
	if l == nil {
		return nil, false
	}
	r, ok := l.dirs[dir]
	return r, ok
}

// TakeListings returns what the repository search read and drops it from
// the plan: it describes the grants before the run, for one walk only.
func (p *Plan) TakeListings() *Listings {
	l := p.listings
	p.listings = nil
	return l
}
