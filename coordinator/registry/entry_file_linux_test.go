package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEntryRawNotJSON: a raw field that is not JSON is refused, as
// json.Marshal refuses it, and nothing is written.
func TestEntryRawNotJSON(t *testing.T) {
	r := newRegistry(t)
	for _, e := range []Entry{{ID: "x", Plan: json.RawMessage(`{"a":`)}, {ID: "y", Access: json.RawMessage(`nope`)}} {
		if err := r.Register(e); err == nil || !strings.Contains(err.Error(), "is not JSON") {
			t.Errorf("%s: %v", e.ID, err)
		}
	}
	if des, _ := os.ReadDir(r.dir()); len(des) != 0 {
		t.Errorf("left %v", des)
	}
}

// TestEntryFileCompact: an entry is one line of compact JSON that reads
// back as written.
func TestEntryFileCompact(t *testing.T) {
	r := newRegistry(t)
	e := selfEntry(t, "compact")
	e.Labels = map[string]string{"k": "v"}
	if err := r.Register(e); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.file("compact"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(e)
	if string(b) != string(want)+"\n" {
		t.Errorf("file %s\nwant %s", b, want)
	}
	got, err := r.Get("compact")
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := json.Marshal(got); string(g) != string(want) {
		t.Errorf("read back %s\nwant %s", g, want)
	}
}

// TestReplace: Replace rewrites a live entry without reading it, leaving
// no temp file.
func TestReplace(t *testing.T) {
	r := newRegistry(t)
	e := selfEntry(t, "rep")
	if err := r.Register(e); err != nil {
		t.Fatal(err)
	}
	e.HelperPid, e.HelperStart = 4242, 9
	if err := r.Replace(e); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Get("rep"); err != nil || got.HelperPid != 4242 || got.HelperStart != 9 || string(got.Plan) != string(e.Plan) {
		t.Fatalf("after Replace: %+v, %v", got, err)
	}
	if m, _ := filepath.Glob(filepath.Join(r.dir(), ".tmp-*")); len(m) != 0 {
		t.Errorf("temp files left: %v", m)
	}
}

// TestListOthers: ListOthers is List without the named entry, which it
// does not read (a damaged file under that name does not show).
func TestListOthers(t *testing.T) {
	r := newRegistry(t)
	for _, id := range []string{"me", "other"} {
		if err := r.Register(selfEntry(t, id)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(r.file("me"), []byte("{damaged"), 0o600)
	got, err := r.ListOthers("me")
	if err != nil || len(got) != 1 || got[0].ID != "other" {
		t.Fatalf("ListOthers(me): %+v, %v", got, err)
	}
	if all, _ := r.List(); len(all) != 1 {
		t.Errorf("List: %d entries; want only other (me is damaged, so dead)", len(all))
	}
}
