//go:build !linux

package policy

import (
	"os"
	"path/filepath"
)

type direntsReader struct{}

func (s *repoSearch) search() error { return s.walk(s.root, 0) }

func (s *repoSearch) walk(dir string, depth int) error {
	if depth == repoSearchDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable here: unreadable for the member too
	}
	for _, e := range entries {
		if !e.IsDir() || skipped(e.Name()) {
			continue
		}
		if err := s.count(); err != nil {
			return err
		}
		sub := filepath.Join(dir, e.Name())
		if s.otherView(sub) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(sub, ".git")); err == nil {
			s.found = append(s.found, sub)
		} else if isGitDir(sub) {
			s.bare = append(s.bare, sub)
			continue // a git directory: protected whole by gitDirWants
		}
		if err := s.walk(sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}
