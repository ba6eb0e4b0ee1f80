package exitscan

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Cap bounds the entries one walk looks at, across all write grants.
const Cap = 1_000_000

// ExitScan is the "exit_scan" section of the report.
type ExitScan struct {
	NewSetuid       []string `json:"new_setuid"`
	NewDevices      []string `json:"new_devices"`
	NewFifos        []string `json:"new_fifos"`
	OutsideSymlinks []string `json:"outside_symlinks"`
	// SetidCleared are the entries of NewSetuid whose set-id bits acbox
	// removed after the run.
	SetidCleared []string `json:"setid_cleared"`
	// FilecapsCleared are the regular files that appeared or changed
	// during the run with file capabilities (security.capability), which
	// acbox removed after the run.
	FilecapsCleared []string `json:"filecaps_cleared"`
	// Unchecked names what acbox could not check or undo, each with why;
	// any entry makes the run exit 124.
	Unchecked []string `json:"unchecked"`
	// GitRedirects are what the git check moved aside (package gitguard).
	GitRedirects []string `json:"git_redirects"`
	Truncated    bool     `json:"truncated"`
	Cap          int      `json:"cap"` // entries per walk at most
}

// WithGitRedirects records what the git check moved aside in s and
// returns s; a nil s stays nil (the scan never began).
func (s *ExitScan) WithGitRedirects(moved []string) *ExitScan {
	if s != nil && len(moved) > 0 {
		s.GitRedirects = moved
	}
	return s
}

// Scan is one launch's scan: [Begin] once the plan is final, before
// anything starts; [Scan.Finish] after every process of the sandbox has
// ended.
type Scan struct {
	full   bool // --report: a walk before as well, and every class
	plan   *policy.Plan
	before *snapshot
	since  time.Time
}

// Begin records the launch time (less a second for the kernel's coarse
// clock) and, with full (--report), walks the plan's write grants as they
// are before the run. Creating, chmod, chown, link, rename and a write
// through a shared mapping all set ctime to now, and nothing lets the
// member set it back (it cannot set the clock either), so what it made or
// changed is at or after that time.
func Begin(p *policy.Plan, full bool) *Scan {
	s := &Scan{full: full, plan: p, since: time.Now().Add(-time.Second)}
	listed := p.TakeListings() // the repository search's reads: this walk only
	if full {
		s.before = walkGrants(p, &walker{since: s.since, listed: listed})
	}
	return s
}

// Finish walks the grants after the run, clears set-id bits, prints the
// findings on errw and returns them, with an error (policy.ErrUnchecked,
// exit 124) when anything could not be checked or undone. A nil s (the
// scan never began) returns nil, nil.
func (s *Scan) Finish(errw io.Writer) (*ExitScan, error) {
	if s == nil || s.plan == nil {
		return nil, nil
	}
	w := &walker{since: s.since, after: true, recentOnly: !s.full, prior: s.before}
	after := walkGrants(s.plan, w)
	before := s.before
	if before == nil {
		before = newSnapshot()
	}
	out := diff(before, after)
	printFindings(errw, out)
	if len(out.Unchecked) > 0 {
		return out, fmt.Errorf("%w: %d path(s), named above; "+
			"inspect them for set-id files and file capabilities before anyone runs what is in them", policy.ErrUnchecked, len(out.Unchecked))
	}
	return out, nil
}

// special is one noteworthy entry: its class and what identifies it (so
// that a file replaced by another of the same class counts as new).
type special struct {
	class string // setuid, device, fifo, symlink
	id    string
}

// snapshot is what one walk of the write grants found.
type snapshot struct {
	found   map[string]special
	cleared map[string]bool // set-id files whose bits the walk removed
	// clearedIno: their inodes, so that each other name of one is named
	clearedIno map[inode]bool
	// capsCleared: files whose file capabilities the walk removed, and
	// capsIno their inodes (each other name of one is named too)
	capsCleared map[string]bool
	capsIno     map[inode]bool
	unchecked   []string // "PATH: why", in walk order
	truncated   bool
}

func newSnapshot() *snapshot {
	return &snapshot{found: map[string]special{}, cleared: map[string]bool{}, clearedIno: map[inode]bool{},
		capsCleared: map[string]bool{}, capsIno: map[inode]bool{}}
}

type inode struct{ dev, ino uint64 }

// diff reports what is in after and was not in before, and every set-id
// file and file with capabilities after's walk cleared (one rewritten in
// place keeps its identity).
func diff(before, after *snapshot) *ExitScan {
	out := &ExitScan{NewSetuid: []string{}, NewDevices: []string{}, NewFifos: []string{}, OutsideSymlinks: []string{},
		SetidCleared: []string{}, FilecapsCleared: []string{}, Unchecked: append([]string{}, after.unchecked...), GitRedirects: []string{},
		Truncated: before.truncated || after.truncated, Cap: Cap}
	for path, sp := range after.found {
		if old, ok := before.found[path]; ok && old == sp && !after.cleared[path] {
			continue
		}
		switch sp.class {
		case "setuid":
			out.NewSetuid = append(out.NewSetuid, path)
		case "device":
			out.NewDevices = append(out.NewDevices, path)
		case "fifo":
			out.NewFifos = append(out.NewFifos, path)
		case "symlink":
			out.OutsideSymlinks = append(out.OutsideSymlinks, path+" -> "+sp.id)
		}
	}
	for path := range after.cleared {
		out.SetidCleared = append(out.SetidCleared, path)
	}
	for path := range after.capsCleared {
		out.FilecapsCleared = append(out.FilecapsCleared, path)
	}
	for _, l := range [][]string{out.NewSetuid, out.NewDevices, out.NewFifos, out.OutsideSymlinks, out.SetidCleared, out.FilecapsCleared} {
		sort.Strings(l)
	}
	return out
}

// printFindings names, on w, each set-id file and device node that
// appeared or changed in a write grant, and everything the scan could not
// check or undo. It runs after every launch, nested ones included (there w
// is the requester's standard error), with or without --report: such a
// file outlives the sandbox (nosuid and no_new_privs stop it only inside).
func printFindings(w io.Writer, s *ExitScan) {
	if s == nil {
		return
	}
	cleared := map[string]bool{}
	for _, p := range s.SetidCleared {
		cleared[p] = true
	}
	for _, p := range s.NewSetuid {
		if cleared[p] {
			fmt.Fprintf(w, "acbox: a set-id file appeared or changed in a write grant during the run: %s; acbox removed its set-id bits\n", policy.Quote(p))
		} else {
			fmt.Fprintf(w, "acbox: a set-id file appeared in a write grant: %s; remove it or clear the bits (chmod ug-s) before anyone runs it\n", policy.Quote(p))
		}
	}
	for _, p := range s.FilecapsCleared {
		fmt.Fprintf(w, "acbox: a file with file capabilities appeared or changed in a write grant during the run: %s; acbox removed its capabilities\n", policy.Quote(p))
	}
	for _, p := range s.NewDevices {
		fmt.Fprintf(w, "acbox: a device node appeared in a write grant: %s; remove it before anyone opens it\n", policy.Quote(p))
	}
	for _, u := range s.Unchecked {
		fmt.Fprintf(w, "acbox: not checked after the run: %s\n", u)
	}
}

// shortPath keeps a path printable when a member nested it very deep.
func shortPath(p string) string {
	if len(p) <= 512 {
		return p
	}
	return p[:480] + fmt.Sprintf("...(%d more levels)", strings.Count(p[480:], "/"))
}
