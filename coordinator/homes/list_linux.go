package homes

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Info describes one persisted home for `acbox home list`.
type Info struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Usage
	// OverQuota: the next run with this home will be refused until it is
	// emptied or removed (the walk stopped at the bound).
	OverQuota bool `json:"over_quota"`
	// LastUsed is when a run last took the home (zero: never recorded).
	LastUsed time.Time `json:"last_used"`
	// Problem says why a run would refuse the home ("": none known).
	Problem string `json:"problem,omitempty"`
}

// List describes every home in dir (policy.HomesDir), by name. A missing
// dir holds none. It takes no lock: a home in use is measured as it is.
func List(dir string, uid int) ([]Info, error) {
	dfd, err := openHomes(dir, uid)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer sys.Close(dfd)
	names, err := readNames(dfd)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", policy.ErrCannotSandbox, dir, err)
	}
	var out []Info
	for _, name := range names {
		if policy.CheckHomeName(name) != nil {
			continue // acbox's own records (dot-names), or nothing acbox made
		}
		out = append(out, describe(dfd, dir, name, uid))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func describe(dfd int, dir, name string, uid int) Info {
	in := Info{Name: name, Path: dir + "/" + name}
	var st unix.Stat_t
	if sys.Fstatat(dfd, stampName(name), &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		in.LastUsed = time.Unix(st.Mtim.Unix())
	}
	fd, err := openHome(dfd, name, in.Path, uid, false)
	if err != nil {
		in.Problem = problem(err)
		return in
	}
	defer sys.Close(fd)
	if in.Usage, err = measure(fd); err != nil {
		in.Problem = "cannot be measured: " + err.Error()
	}
	in.OverQuota = in.over(Usage{Bytes: Quota, Entries: MaxEntries})
	return in
}

func problem(err error) string {
	var re *policy.RefusedError
	if errors.As(err, &re) {
		return strings.TrimPrefix(re.Why, "the home ")
	}
	return err.Error()
}

// Remove deletes the home name in dir and its record, never following a
// link. A home in use by a run is refused. Directories the member made
// unreadable or unwritable get their owner permissions back on the way.
func Remove(dir, name string, uid int) error {
	if err := policy.CheckHomeName(name); err != nil {
		return err
	}
	path := dir + "/" + name
	dfd, err := openHomes(dir, uid)
	if errors.Is(err, fs.ErrNotExist) {
		return &policy.RefusedError{Subject: name, Why: "no such home", Instead: "acbox home list shows the homes"}
	}
	if err != nil {
		return err
	}
	defer sys.Close(dfd)
	fd, err := sys.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return &policy.RefusedError{Subject: name, Why: "no such home", Instead: "acbox home list shows the homes"}
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
		return removeEntry(dfd, name, path) // not a home: remove the link or file itself
	case err != nil:
		return fmt.Errorf("%w: opening %s: %w", policy.ErrCannotSandbox, path, err)
	}
	defer sys.Close(fd)
	if err := lock(fd, dfd, name, path); err != nil {
		return err
	}
	if err := emptyTree(fd); err != nil {
		return fmt.Errorf("%w: removing %s: %w", policy.ErrCannotSandbox, path, err)
	}
	if err := sys.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err != nil {
		return fmt.Errorf("%w: removing %s: %w", policy.ErrCannotSandbox, path, err)
	}
	sys.Unlinkat(dfd, stampName(name), 0)
	return nil
}

func removeEntry(dfd int, name, path string) error {
	if err := sys.Unlinkat(dfd, name, 0); err != nil {
		return fmt.Errorf("%w: removing %s: %w", policy.ErrCannotSandbox, path, err)
	}
	sys.Unlinkat(dfd, stampName(name), 0)
	return nil
}

// emptyTree empties the directory open at top however deep it goes, never
// following a link. A member can make a chain of directories deeper than
// any walk bound, and the refusal of such a home names `acbox home rm`: a
// directory found at maxDepth is moved up into top under a new name and
// emptied by the next pass, so no more than maxDepth descriptors are open
// at once and each pass removes maxDepth levels. Nothing else writes in
// the home meanwhile: Remove holds its lock.
func emptyTree(top int) error {
	r := remover{top: top}
	for {
		r.moved = 0
		if err := r.empty(top, 0); err != nil {
			return err
		}
		if r.moved == 0 {
			return nil
		}
	}
}

// remover is one emptyTree: the home's descriptor, how many directories
// this pass moved up, and the counter that names them.
type remover struct {
	top, moved, seq int
}

// empty removes everything in the directory open at fd, depth levels
// below top, depth first.
func (r *remover) empty(fd, depth int) error {
	var st unix.Stat_t
	if sys.Fstat(fd, "directory", &st) == nil && st.Mode&0o700 != 0o700 {
		sys.FchmodPath(fd, st.Mode&0o7777|0o700) // to list and unlink in it
	}
	names, err := readNames(fd)
	if err != nil {
		return err
	}
	for _, name := range names {
		err := sys.Unlinkat(fd, name, 0)
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
			err = r.removeDir(fd, name, depth)
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return nil
}

func (r *remover) removeDir(fd int, name string, depth int) error {
	if depth >= maxDepth {
		return r.moveUp(fd, name)
	}
	sub, err := openDir(fd, name)
	if err != nil {
		return err
	}
	err = r.empty(sub, depth+1)
	sys.Close(sub)
	if err != nil {
		return err
	}
	return sys.Unlinkat(fd, name, unix.AT_REMOVEDIR)
}

// moveUp moves the directory name in fd into the home's top under a name
// nothing there has (the member may have taken some).
func (r *remover) moveUp(fd int, name string) error {
	for {
		r.seq++
		err := sys.Renameat2(fd, name, r.top, fmt.Sprintf(".acbox-rm-%d", r.seq), unix.RENAME_NOREPLACE)
		if !errors.Is(err, unix.EEXIST) {
			if err == nil {
				r.moved++
			}
			return err
		}
	}
}
