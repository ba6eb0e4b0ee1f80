package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// The exit scan: the parent walks every write grant before the launch and
// after the member's exit, names new set-id files and devices on standard
// error after every run, and with --report reports what appeared there
// that deserves a look before anyone uses the directory outside: setuid or
// setgid files (nosuid stops them inside, not outside), device nodes,
// FIFOs, and symlinks that point outside every grant (a later tool that
// follows one reads or writes elsewhere).
//
// The walk runs only outside the sandbox, never follows a symlink (every
// directory is opened relative to its parent with O_NOFOLLOW, every entry
// is fstatat'd with AT_SYMLINK_NOFOLLOW), does not descend into other
// write grants twice, and stops after scanCap entries; the report then says
// truncated. A symlink's target is judged as written (made absolute against
// the link's directory), not resolved: a link into the grant that leads on
// through another link is reported at that other link if it is new.

// scanCap bounds the entries one walk looks at, across all write grants.
const scanCap = 100_000

// ExitScan is the "exit_scan" section of the report.
type ExitScan struct {
	NewSetuid       []string `json:"new_setuid"`
	NewDevices      []string `json:"new_devices"`
	NewFifos        []string `json:"new_fifos"`
	OutsideSymlinks []string `json:"outside_symlinks"`
	// GitRedirects are commondir files that appeared in protected git
	// directories (moved aside at exit; see gitredirect.go).
	GitRedirects []string `json:"git_redirects"`
	Truncated    bool     `json:"truncated"`
	Cap          int      `json:"cap"` // entries per walk at most
}

// special is one noteworthy entry: its class and what identifies it (so
// that a file replaced by another of the same class counts as new).
type special struct {
	class string // setuid, device, fifo, symlink
	id    string
}

// snapshot is the set of special entries in the write grants.
type snapshot struct {
	found     map[string]special
	truncated bool
}

// scanGrants walks the plan's write grants.
func scanGrants(p *coordinator.Plan) *snapshot { return scanSince(p, nil) }

// scanSince walks the plan's write grants; with since, it keeps only the
// set-id files and devices changed at or after it (see walker.since).
func scanSince(p *coordinator.Plan, since *unix.Timespec) *snapshot {
	s := &snapshot{found: map[string]special{}}
	w := &walker{plan: p, snap: s, left: scanCap, roots: map[string]bool{}, since: since}
	for _, g := range p.WriteGrants() {
		w.roots[g] = true
	}
	for _, g := range p.WriteGrants() {
		if fd, err := unix.Open(g, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			w.dir(fd, g)
		}
	}
	s.truncated = w.left < 0
	return s
}

// withRedirects adds the launch's moved-aside commondir files to a scan.
func withRedirects(s *ExitScan, out *coordinator.Outcome) *ExitScan {
	if s != nil && len(out.GitRedirects) > 0 {
		s.GitRedirects = out.GitRedirects
	}
	return s
}

// diff reports what is in after and was not in before.
func diff(before, after *snapshot) *ExitScan {
	out := &ExitScan{NewSetuid: []string{}, NewDevices: []string{}, NewFifos: []string{}, OutsideSymlinks: []string{}, GitRedirects: []string{},
		Truncated: before.truncated || after.truncated, Cap: scanCap}
	for path, sp := range after.found {
		if old, ok := before.found[path]; ok && old == sp {
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
	for _, l := range [][]string{out.NewSetuid, out.NewDevices, out.NewFifos, out.OutsideSymlinks} {
		sort.Strings(l)
	}
	return out
}

type walker struct {
	plan  *coordinator.Plan
	snap  *snapshot
	left  int
	roots map[string]bool
	// since, when set, keeps only set-id files and devices whose ctime is
	// at or after it, and skips fifos and symlinks: the one-walk scan.
	since *unix.Timespec
}

// dir walks the directory open at fd (named path), closing fd.
func (w *walker) dir(fd int, path string) {
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	for w.left >= 0 {
		ents, err := f.ReadDir(512)
		for _, e := range ents {
			if w.left--; w.left < 0 {
				return
			}
			w.entry(fd, path, e)
		}
		if err != nil {
			return
		}
	}
}

// entry looks at one directory entry. The type comes from getdents
// (d_type), so directories and links cost no stat; an unknown type
// (DT_UNKNOWN, on filesystems without d_type) is stat'ed like a file.
func (w *walker) entry(dirfd int, dir string, e os.DirEntry) {
	name := e.Name()
	if e.IsDir() {
		path := filepath.Join(dir, name)
		if w.roots[path] {
			return // another write grant, walked on its own
		}
		if fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			w.dir(fd, path)
		}
		return
	}
	if e.Type()&os.ModeSymlink != 0 {
		if w.since == nil {
			w.link(dirfd, dir, name)
		}
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	w.stated(dirfd, dir, name, st)
}

func (w *walker) stated(dirfd int, dir, name string, st unix.Stat_t) {
	path := filepath.Join(dir, name)
	if w.since != nil && (st.Ctim.Sec < w.since.Sec || st.Ctim.Sec == w.since.Sec && st.Ctim.Nsec < w.since.Nsec) {
		return // unchanged since the launch
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR: // d_type was unknown
		if !w.roots[path] {
			if fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				w.dir(fd, path)
			}
		}
	case unix.S_IFREG:
		if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
			w.add(path, "setuid", st)
		}
	case unix.S_IFCHR, unix.S_IFBLK:
		w.add(path, "device", st)
	case unix.S_IFIFO:
		if w.since == nil {
			w.add(path, "fifo", st)
		}
	case unix.S_IFLNK:
		if w.since == nil {
			w.link(dirfd, dir, name)
		}
	}
}

func (w *walker) add(path, class string, st unix.Stat_t) {
	w.snap.found[path] = special{class: class, id: identKey(st)}
}

func identKey(st unix.Stat_t) string {
	return fmt.Sprintf("%d:%d:%o:%d", st.Dev, st.Ino, st.Mode, st.Rdev)
}

func (w *walker) link(dirfd int, dir, name string) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return
	}
	target := string(buf[:n])
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	if !insideGrants(filepath.Clean(abs), w.plan) {
		w.snap.found[filepath.Join(dir, name)] = special{class: "symlink", id: target}
	}
}

func insideGrants(p string, plan *coordinator.Plan) bool {
	for _, g := range plan.Grants {
		if p == g.Path || strings.HasPrefix(p, g.Path+"/") {
			return true
		}
	}
	return false
}

// printFindings names, on w, each set-id file and device node that appeared
// in a write grant, and says when the walk was cut short. It runs after
// every launch, with or without --report: such a file outlives the
// sandbox (nosuid and no_new_privs stop it only inside), and the seccomp
// policy that refuses making one is a single layer.
func printFindings(w io.Writer, s *ExitScan) {
	if s == nil {
		return
	}
	for _, p := range s.NewSetuid {
		fmt.Fprintf(w, "acbox: a set-id file appeared in a write grant: %s; "+
			"remove it or clear the bits (chmod ug-s) before anyone runs it\n", p)
	}
	for _, p := range s.NewDevices {
		fmt.Fprintf(w, "acbox: a device node appeared in a write grant: %s; remove it before anyone opens it\n", p)
	}
	if s.Truncated {
		fmt.Fprintf(w, "acbox: the exit scan stopped after %d entries; set-id files and devices beyond them were not checked\n", s.Cap)
	}
}

// exitScanHook returns a plan hook that takes the "before" snapshot (for
// runSpec's check, which sees the plan before anything starts) and a
// function that takes the "after" snapshot and reports the difference;
// that returns nil when the hook never ran.
//
// With full false (no --report) there is one walk, after the exit: it
// keeps the set-id files and devices whose ctime is at or after the
// launch, less a second for the kernel's coarse clock. Creating, chmod,
// chown, link and rename all set ctime to now, and nothing lets the member
// set it back, so what it made or changed is there, and the rest of the
// grant costs no snapshot. Fifos and symlinks need the two-walk diff.
func exitScanHook(check func(*coordinator.Plan) error, full bool) (func(*coordinator.Plan) error, func() *ExitScan) {
	var plan *coordinator.Plan
	var before *snapshot
	var start unix.Timespec
	hook := func(p *coordinator.Plan) error {
		if check != nil {
			if err := check(p); err != nil {
				return err
			}
		}
		plan = p
		if full {
			before = scanGrants(p)
		} else if unix.ClockGettime(unix.CLOCK_REALTIME, &start) == nil {
			start.Sec--
		}
		return nil
	}
	done := func() *ExitScan {
		if plan == nil {
			return nil
		}
		if full {
			return diff(before, scanGrants(plan))
		}
		return diff(&snapshot{found: map[string]special{}}, scanSince(plan, &start))
	}
	return hook, done
}
