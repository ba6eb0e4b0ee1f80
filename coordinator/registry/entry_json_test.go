package registry

import (
	"encoding/json"
	"testing"
	"time"
)

// entryCases are entries with each field set and unset, and strings that
// need escaping.
func entryCases() []Entry {
	plan := json.RawMessage(`{"backend":"native","command":null,"grants":[{"path":"/a\u003cb","write":true}]}`)
	access := json.RawMessage(`{"enforced":true,"backend":"native","read":[],"write":[],"network":{"mode":"none","allow":[]}}`)
	t0 := time.Date(2026, 12, 1, 22, 38, 32, 559377587, time.UTC)
	return []Entry{
		{},
		{ID: "a", Backend: "native", UID: 1000, OwnerPid: 42, OwnerStart: 123, Memory: 1 << 31, Pids: 1024, Started: t0},
		{ID: "b-1.x_y", Backend: "docker", UID: 0, OwnerPid: 1, OwnerStart: 1<<64 - 1, PidNS: 4026531836, HelperPid: 43, HelperStart: 7,
			Access: access, Labels: map[string]string{"team": "a<b>&c", "b": "", "a": "x,y=z \"q\"", "é": "\u2028"},
			Memory: -1, Pids: -5, Started: t0.In(time.FixedZone("x", 3600)), Parent: "p\xff", Depth: 3, Within: true, Plan: plan},
		{ID: "c", Labels: map[string]string{}, Access: json.RawMessage{}, Plan: json.RawMessage(`null`), Started: time.Unix(0, 1)},
		{ID: "d", UID: -1, OwnerPid: -2, HelperPid: -3, Depth: -4, Started: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.Local)},
		{ID: "e", Started: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, // both refuse
	}
}

// TestEntryJSONMatches: the entry written by hand is json.Marshal's.
func TestEntryJSONMatches(t *testing.T) {
	for _, e := range entryCases() {
		checkEntryJSON(t, e)
	}
}

func FuzzEntryJSON(f *testing.F) {
	f.Add("a", "native", 1000, uint64(7), int64(1<<30), "team", "x", "", 2, true, int64(1764628712), `{"x":[1,"<"]}`)
	f.Add("", "", -1, uint64(0), int64(0), "", "", "p", 0, false, int64(0), `null`)
	f.Fuzz(func(t *testing.T, id, backend string, pid int, start uint64, mem int64, key, value, parent string, depth int, within bool, sec int64, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		compact, _ := json.Marshal(v) // a raw field as the launch has it: json.Marshal's
		e := Entry{ID: id, Backend: backend, UID: pid, OwnerPid: pid, OwnerStart: start, PidNS: start >> 1, HelperPid: depth, HelperStart: start,
			Access: compact, Memory: mem, Pids: pid, Started: time.Unix(sec%(1<<35), int64(start%1e9)).UTC(), Parent: parent, Depth: depth, Within: within, Plan: compact}
		if key != "" || value != "" {
			e.Labels = map[string]string{key: value, value: key}
		}
		checkEntryJSON(t, e)
	})
}

func checkEntryJSON(t *testing.T, e Entry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := e.appendJSON(nil)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%+v: json.Marshal: %v, by hand: %v", e, werr, gerr)
	}
	if string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
