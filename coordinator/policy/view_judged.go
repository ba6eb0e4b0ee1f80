package policy

import (
	"errors"
	"path/filepath"
)

// resolveJudged hides a path a nested request named (an --exclude, a
// private path) where its judgment found it, and records what the
// judgment found there, never what a later look finds: that look may land
// where the requester cannot see (a link in its write grant flipped in
// between). The holder locates the name again to hold it; a place or a
// held directory other than the judged one is refused alike whatever it
// held. A name behind something that is not a directory cannot appear
// and needs no mask.
func (x *holder) resolveJudged(w maskWant) ([]Mask, error) {
	j := w.judged
	dir, name, _, ok := locate(j.real)
	if j.notDir {
		if ok {
			return nil, changed(w.path, "is a path the nested launch named, but")
		}
		return nil, nil
	}
	if !ok || filepath.Join(dir, name) != j.found {
		return nil, changed(w.path, "is a path the nested launch named, but")
	}
	held, err := x.hide(dir, name, false, w.noSource)
	var ce *chainError
	if errors.As(err, &ce) {
		return nil, changed(w.path, "is a path the nested launch named, but")
	}
	if err != nil {
		return nil, err
	}
	if v, ok := x.views[dir]; ok && held == HeldView && [2]uint64{v.Dev, v.Ino} != j.dir {
		return nil, changed(w.path, "is a path the nested launch named, but")
	}
	m := Mask{Path: j.found, Kind: "absent", Why: w.why, Held: held}
	if j.info != nil {
		m.Kind = "file"
		if j.info.IsDir() {
			m.Kind = "dir"
		}
		m.Dev, m.Ino = fileIdent(j.info)
	}
	return []Mask{m}, nil
}
