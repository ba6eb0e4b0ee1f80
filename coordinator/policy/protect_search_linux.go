//go:build linux

package policy

import (
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/dirents"
	"github.com/acbox/acbox/coordinator/sys"
)

// The search on Linux: each directory read once with getdents into one
// buffer, opened relative to its parent without following a link, its
// records kept in the plan's listings for the exit scan. Whether a
// directory holds .git comes from its own entries (confirmed with one
// fstatat, as the lstat before, when it does); only the directories at the
// depth limit, which are not read, get an fstatat each.

type direntsReader = dirents.Reader

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

func (s *repoSearch) search() error {
	if s.plan.listings == nil {
		s.plan.listings = &Listings{}
	}
	fd, err := sys.Open(s.root, dirFlags, 0)
	if err != nil {
		return nil // unreadable here: unreadable for the member too
	}
	return s.walk(fd, s.root, 0)
}

// walk searches the directory open at fd (dir, depth levels below the
// root; a repository when it holds .git), closing fd.
func (s *repoSearch) walk(fd int, dir string, depth int) error {
	defer sys.Close(fd)
	subs, git, bare, ok := s.list(fd, dir)
	if !ok { // unreadable here: unreadable for the member too
		if depth > 0 && hasGit(fd, ".git") {
			s.found = append(s.found, dir)
		}
		return nil
	}
	if git && depth > 0 && hasGit(fd, ".git") {
		s.found = append(s.found, dir)
	} else if bare && depth > 0 && isGitDir(dir) {
		s.bare = append(s.bare, dir)
		return nil // a git directory: its insides are git's, protected whole by gitDirWants
	}
	if depth == repoSearchDepth-1 {
		return s.leaves(fd, dir, subs)
	}
	for _, name := range subs {
		if err := s.count(); err != nil {
			return err
		}
		sub := filepath.Join(dir, name)
		if s.otherView(sub) {
			continue
		}
		sfd, err := sys.Openat(fd, name, dirFlags|unix.O_NOFOLLOW, 0)
		if err != nil { // not readable, maybe searchable: .git may still be there
			if hasGit(fd, name+"/.git") {
				s.found = append(s.found, sub)
			}
			continue
		}
		if err := s.walk(sfd, sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// leaves looks at the subdirectories at the depth limit, which are not
// read: one fstatat of NAME/.git each.
func (s *repoSearch) leaves(fd int, dir string, subs []string) error {
	for _, name := range subs {
		if err := s.count(); err != nil {
			return err
		}
		sub := filepath.Join(dir, name)
		switch {
		case s.otherView(sub):
		case hasGit(fd, name+"/.git"):
			s.found = append(s.found, sub)
		case hasGit(fd, name+"/HEAD") && isGitDir(sub):
			s.bare = append(s.bare, sub)
		}
	}
	return nil
}

// list reads the directory open at fd: its subdirectories by name (less
// .git and node_modules), whether it holds a .git entry, and whether it
// holds HEAD, objects and refs (a bare repository's layout). ok is false
// when it could not be read whole.
func (s *repoSearch) list(fd int, dir string) (subs []string, git, bare, ok bool) {
	marks := 0
	var keep []byte
	kp := &keep
	if s.full {
		kp = nil
	}
	err := s.rd.Each(fd, dir, kp, func(name []byte, typ uint8) bool {
		switch string(name) {
		case ".git":
			git = true
		case "HEAD", "objects", "refs":
			marks++
		}
		if typ == unix.DT_UNKNOWN { // a filesystem without d_type
			typ = typeAt(fd, string(name))
		}
		if typ == unix.DT_DIR && !skipped(string(name)) {
			subs = append(subs, string(name))
		}
		return true
	})
	if err != nil {
		return nil, false, false, false
	}
	sort.Strings(subs)
	if !s.full && !s.plan.listings.keep(dir, keep) {
		s.full = true
	}
	return subs, git, marks == 3, true
}

func hasGit(dirfd int, path string) bool {
	var st unix.Stat_t
	return sys.Fstatat(dirfd, path, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// typeAt is name's type as getdents gives it (DT_DIR, DT_LNK, ...).
func typeAt(dirfd int, name string) uint8 {
	var st unix.Stat_t
	if sys.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return unix.DT_UNKNOWN
	}
	return uint8(st.Mode & unix.S_IFMT >> 12)
}
