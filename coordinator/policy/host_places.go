package policy

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Where acbox keeps its state (registry, run directories with the broker
// and proxy sockets of every live sandbox) and its config depends on the
// environment of each launch: $XDG_RUNTIME_DIR/acbox or
// ~/.local/state/acbox, $XDG_CONFIG_HOME/acbox or ~/.config/acbox. Masking
// and refusing only this launch's choice let a sandbox started with
// XDG_RUNTIME_DIR set read another sandbox's state under
// ~/.local/state/acbox and ask its broker for a write grant. So every launch
// masks and refuses every place any launch of this user may use: both forms
// of each, /run/user/UID/acbox (the usual XDG_RUNTIME_DIR), and each
// directory a launch with other XDG values recorded in placesFile.

// placesFile, in the state directory that does not depend on
// XDG_RUNTIME_DIR (homeStateDir; always masked, never grantable), lists state and config directories outside the usual
// places, one absolute path a line.
const placesFile = "places"

// maxPlaces bounds what is read: a list that grew past it is compacted
// (entries whose XDG directory is gone are dropped) when next written.
const maxPlaces = 256

func fallbackStateDir(home string) string  { return filepath.Join(home, ".local", "state", "acbox") }
func fallbackConfigDir(home string) string { return filepath.Join(home, ".config", "acbox") }

// usualPlaces are the places acbox's state and config may be without any
// record: the fallback forms (in the home, and /tmp/acbox-UID for a user
// without a usable home) and the standard runtime directory.
func usualPlaces(h Host) []string {
	return []string{fallbackStateDir(h.Home), fallbackConfigDir(h.Home), "/run/user/" + strconv.Itoa(h.UID) + "/acbox", tmpStateDir(h.UID)}
}

// acboxDirs is every place of acbox's state and config this launch masks
// and refuses: this launch's own, the usual ones, the recorded ones.
func (h Host) acboxDirs() []string {
	var out []string
	for _, p := range slices.Concat([]string{h.StateDir, h.ConfigDir}, usualPlaces(h), h.Places) {
		if filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// loadPlaces reads the recorded places and records this launch's own
// when they are not usual and not listed yet. A place that cannot be
// recorded is an error: a later launch could not mask it.
func loadPlaces(h Host) ([]string, error) {
	file := filepath.Join(homeStateDir(h.Home, h.UID), placesFile)
	listed, err := readPlaces(file)
	if err != nil {
		return nil, err
	}
	var add []string
	for _, p := range []string{h.StateDir, h.ConfigDir} {
		if !slices.Contains(usualPlaces(h), p) && !slices.Contains(listed, p) {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return listed, nil
	}
	if err := writePlaces(file, listed, add); err != nil {
		return nil, invalid("cannot record acbox's state or config directory %s in %s (%v), so later sandboxes could not mask it: fix that file's directory, or unset XDG_RUNTIME_DIR and XDG_CONFIG_HOME",
			strings.Join(add, " and "), file, err)
	}
	return append(listed, add...), nil
}

// readPlaces returns the absolute paths listed in file ("" lines and junk
// skipped); a missing file lists nothing. Every launch reads it: O_NONBLOCK
// so that neither a FIFO nor a lease held on it outside makes the open
// wait (a lease then fails it with EWOULDBLOCK), and only a regular file is
// read: O_NONBLOCK alone does not keep a read of a FIFO whose writer stays
// open from waiting (Go's poller waits for data).
func readPlaces(file string) ([]string, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, invalid("cannot read %s (%v): it lists where other launches keep acbox's state; fix its permissions", file, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, invalid("cannot read %s: not a regular file (it lists where other launches keep acbox's state); remove it, and a launch makes it again", file)
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		if p := strings.TrimSpace(sc.Text()); filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out, nil
}

// writePlaces appends add to file; past maxPlaces it rewrites the file
// without the entries whose XDG directory (the parent) no longer exists.
func writePlaces(file string, listed, add []string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	if err := privateDir(filepath.Dir(file)); err != nil {
		return err
	}
	if len(listed)+len(add) > maxPlaces {
		return rewritePlaces(file, slices.Concat(listed, add))
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(add, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func rewritePlaces(file string, all []string) error {
	var keep []string
	for _, p := range all {
		if _, err := os.Lstat(filepath.Dir(p)); err == nil {
			keep = append(keep, p)
		}
	}
	tmp := file + ".new"
	if err := os.WriteFile(tmp, []byte(strings.Join(keep, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
