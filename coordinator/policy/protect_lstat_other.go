//go:build !linux

package policy

import (
	"io/fs"
	"os"
	"path/filepath"
)

// lstatBelow: each of names under g in turn, by lstat (Linux walks
// descriptors instead).
func lstatBelow(g Grant, names []string) ([]fs.FileInfo, error) {
	var out []fs.FileInfo
	cur := g.Path
	for _, name := range names {
		cur = filepath.Join(cur, name)
		fi, err := os.Lstat(cur)
		if err != nil {
			return out, err
		}
		out = append(out, fi)
		if fi.Mode()&os.ModeSymlink != 0 {
			return out, nil
		}
	}
	return out, nil
}
