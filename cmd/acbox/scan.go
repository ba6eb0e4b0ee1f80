package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator"
)

// The exit scan: with --report, the parent walks every write grant before
// the launch and after the member's exit, and reports what appeared there
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
func scanGrants(p *coordinator.Plan) *snapshot {
	s := &snapshot{found: map[string]special{}}
	w := &walker{plan: p, snap: s, left: scanCap, roots: map[string]bool{}}
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
}

// dir walks the directory open at fd (named path), closing fd.
func (w *walker) dir(fd int, path string) {
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	for w.left >= 0 {
		names, err := f.Readdirnames(512)
		for _, n := range names {
			if w.left--; w.left < 0 {
				return
			}
			w.entry(fd, path, n)
		}
		if err != nil {
			return
		}
	}
}

func (w *walker) entry(dirfd int, dir, name string) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	path := filepath.Join(dir, name)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if w.roots[path] {
			return // another write grant, walked on its own
		}
		if fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			w.dir(fd, path)
		}
	case unix.S_IFREG:
		if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
			w.add(path, "setuid", st)
		}
	case unix.S_IFCHR, unix.S_IFBLK:
		w.add(path, "device", st)
	case unix.S_IFIFO:
		w.add(path, "fifo", st)
	case unix.S_IFLNK:
		w.link(dirfd, dir, name)
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

// exitScanHook returns a plan hook that takes the "before" snapshot (for
// runSpec's check, which sees the plan before anything starts) and a
// function that takes the "after" snapshot and reports the difference;
// that returns nil when the hook never ran.
func exitScanHook(check func(*coordinator.Plan) error) (func(*coordinator.Plan) error, func() *ExitScan) {
	var plan *coordinator.Plan
	var before *snapshot
	hook := func(p *coordinator.Plan) error {
		if check != nil {
			if err := check(p); err != nil {
				return err
			}
		}
		plan, before = p, scanGrants(p)
		return nil
	}
	done := func() *ExitScan {
		if plan == nil {
			return nil
		}
		return diff(before, scanGrants(plan))
	}
	return hook, done
}
