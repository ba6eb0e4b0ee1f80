package homes

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Quota and MaxEntries bound a persisted home when a run starts. The
// entries bound leaves the exit scan (1,000,000 entries across the write
// grants and the home) room for the grants.
const (
	Quota      int64 = 8 << 30
	MaxEntries       = 500_000
	maxDepth         = 1000 // as the exit scan
)

// Usage is what a home holds: bytes allocated (st_blocks) and entries.
type Usage struct {
	Bytes   int64  `json:"bytes"`
	Entries int    `json:"entries"`
	max     *Usage // where a walk stops
}

// over reports whether u is past a bound of max.
func (u Usage) over(max Usage) bool { return u.Bytes > max.Bytes || u.Entries > max.Entries }

// errTooMuch stops a walk that has passed a bound; the usage so far is
// already over it.
var errTooMuch = errors.New("over the bound")

// measure walks the directory open at fd, never following a link, and
// adds up what it holds. It stops once past Quota or MaxEntries (the
// usage then says so). A directory the owner cannot read (the member may
// chmod 000 one) gets its owner permissions back, as the exit scan does.
func measure(fd int) (Usage, error) { return measureTo(fd, Usage{Bytes: Quota, Entries: MaxEntries}) }

// measureTo is measure with the bounds in max.
func measureTo(fd int, max Usage) (Usage, error) {
	u := Usage{max: &max}
	err := u.dir(fd, 0)
	if errors.Is(err, errTooMuch) {
		err = nil
	}
	return u, err
}

func (u *Usage) dir(fd, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("deeper than %d levels", maxDepth)
	}
	names, err := readNames(fd)
	if err != nil {
		return err
	}
	for _, name := range names {
		var st unix.Stat_t
		if err := sys.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return err
		}
		u.Entries++
		u.Bytes += st.Blocks * 512
		if u.over(*u.max) {
			return errTooMuch
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := u.sub(fd, name, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

func (u *Usage) sub(fd int, name string, depth int) error {
	sub, err := openDir(fd, name)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer sys.Close(sub)
	return u.dir(sub, depth+1)
}

// openDir opens the directory name in fd without following a link; if
// its owner may not read it, it gives the owner its permissions back
// first (through an O_PATH descriptor of exactly that directory).
func openDir(fd int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	sub, err := sys.Openat(fd, name, flags, 0)
	if !errors.Is(err, unix.EACCES) {
		return sub, err
	}
	p, perr := sys.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if perr != nil {
		return -1, err
	}
	defer sys.Close(p)
	var st unix.Stat_t
	if sys.Fstat(p, name, &st) != nil || sys.FchmodPath(p, st.Mode&0o7777|0o700) != nil {
		return -1, err
	}
	return sys.Openat(fd, name, flags, 0)
}

// readNames lists the directory open at fd (a duplicate is read, so fd
// stays open and at its place).
func readNames(fd int) ([]string, error) {
	dup, err := sys.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "dir")
	defer f.Close()
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	return f.Readdirnames(-1)
}

// checkQuota refuses a home over Quota or MaxEntries, or one that cannot
// be measured, naming the remedy.
func checkQuota(fd int, h *policy.PersistedHome) error {
	return checkQuotaTo(fd, h, Usage{Bytes: Quota, Entries: MaxEntries})
}

func checkQuotaTo(fd int, h *policy.PersistedHome, max Usage) error {
	u, err := measureTo(fd, max)
	if err != nil {
		return &policy.RefusedError{Subject: h.Path, Why: "the home cannot be measured against its quota: " + err.Error(),
			Instead: "remove it: acbox home rm " + h.Name}
	}
	if u.over(max) {
		return &policy.RefusedError{Subject: h.Path,
			Why:     fmt.Sprintf("the home holds more than its quota (%s or %d entries)", policy.FormatSize(max.Bytes), max.Entries),
			Instead: "empty caches inside it (acbox run --home " + h.Name + " -- go clean -cache), or remove it: acbox home rm " + h.Name}
	}
	return nil
}
