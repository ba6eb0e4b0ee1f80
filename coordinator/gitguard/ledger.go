package gitguard

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Two sandboxes with write grants over the same repository defeat each
// other's record: A's member plants a .git, B starts and records it as the
// repository's own, A's check moves it aside, B's member renames it back,
// and B's check finds the inode it recorded. So every check writes what it
// moves aside, by device and inode, to a ledger in the user's state
// directory (masked in every sandbox), and a check takes an entry it
// recorded at launch for the repository's own only when no check has
// moved that inode aside since this launch recorded it: an inode that
// comes back under its old name after a check moved it aside was put back
// by some member (or by the user during the run) and is moved aside again.
// A user who restores a quarantined entry between runs is not affected:
// the next launch records it after the move.
//
// The ledger is a directory of empty files named DEV-INO, whose mtime is
// when a check moved that inode aside; files older than ledgerKeep are
// removed when one is added. Writing it is best effort: a ledger that
// cannot be written leaves concurrent sandboxes as before, and is named on
// standard error by the launcher's Quarantine.

// ledgerKeep is how long a ledger entry is kept: longer than any run that
// could have recorded the inode before it was moved aside.
const ledgerKeep = 30 * 24 * time.Hour

// ledger is the ledger's directory and when this launch's record began.
type ledger struct {
	dir   string
	since time.Time
	err   error // the first failure to write
}

func ledgerName(e entry) string { return fmt.Sprintf("%d-%d", e.dev, e.ino) }

// moved notes that a check moved e aside now.
func (l *ledger) moved(e entry) {
	if l == nil || l.dir == "" {
		return
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		l.fail(err)
		return
	}
	p := filepath.Join(l.dir, ledgerName(e))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		l.fail(err)
		return
	}
	f.Close()
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		l.fail(err)
	}
	l.prune(now)
}

func (l *ledger) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

func (l *ledger) prune(now time.Time) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return
	}
	for _, d := range ents {
		if fi, err := d.Info(); err == nil && now.Sub(fi.ModTime()) > ledgerKeep {
			os.Remove(filepath.Join(l.dir, d.Name()))
		}
	}
}

// movedSince reports whether a check moved e aside since this launch
// recorded it.
func (l *ledger) movedSince(e entry) bool {
	if l == nil || l.dir == "" {
		return false
	}
	fi, err := os.Lstat(filepath.Join(l.dir, ledgerName(e)))
	return err == nil && !fi.ModTime().Before(l.since)
}
