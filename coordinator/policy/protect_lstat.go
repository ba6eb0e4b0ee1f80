package policy

import (
	"io/fs"
	"os"
)

// endsInLink: the last of infos is a symlink (lstatBelow stops there).
func endsInLink(infos []fs.FileInfo) bool {
	return len(infos) > 0 && infos[len(infos)-1].Mode()&os.ModeSymlink != 0
}

// afterLstat, when set (tests), runs after each name lstatBelow looks at.
var afterLstat func(name string)
