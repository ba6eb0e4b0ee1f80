package registry

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleTemp is how old a leftover temp file of an interrupted write must be
// before Sweep removes it; a write in progress takes microseconds.
const staleTemp = time.Minute

// Sweep removes, under the lock, what dead owners left beside their
// entries: runtime directories (StateDir/run/<id>, with their sockets) that
// no entry and no live admission-queue ticket names (a launch that waits
// for a slot has its run directory already), and stale temp files of
// interrupted writes. It
// returns the removed paths. Call [Registry.Reap] first.
func (r *Registry) Sweep() ([]string, error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	live := map[string]bool{}
	es, err := r.all()
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		live[e.ID] = true // a dead entry here is reaped by Reap, not guessed at
	}
	waiting, err := r.ticketsLocked()
	if err != nil {
		return nil, err
	}
	for _, w := range waiting {
		live[w.id] = true
	}
	removed := r.sweepRunDirs(live)
	return append(removed, r.sweepTemps()...), nil
}

func (r *Registry) sweepRunDirs(live map[string]bool) []string {
	run := filepath.Join(r.state, "run")
	des, _ := os.ReadDir(run)
	var out []string
	for _, de := range des {
		if live[de.Name()] {
			continue
		}
		p := filepath.Join(run, de.Name())
		if os.RemoveAll(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

func (r *Registry) sweepTemps() []string {
	des, _ := os.ReadDir(r.dir())
	var out []string
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ".tmp-") {
			continue
		}
		fi, err := de.Info()
		if err != nil || time.Since(fi.ModTime()) < staleTemp {
			continue
		}
		p := filepath.Join(r.dir(), de.Name())
		if os.Remove(p) == nil {
			out = append(out, p)
		}
	}
	return out
}
