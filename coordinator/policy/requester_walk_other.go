//go:build !linux

package policy

import (
	"errors"
	"os"
)

// walkOnce: nested launches exist only on Linux; elsewhere nothing is
// judged seen.
func walkOnce(string) (walkStep, error) {
	return walkStep{}, errors.New("nested launches need Linux")
}

// openNoLinks: only the last component is kept from being a link here.
func openNoLinks(path string) (*os.File, error) { return openNoFollow(path) }
