package registry

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestFastDecodeMatches: every entry this package writes (the table's and
// random ones, with real plans' JSON) is read by the fast path, exactly as
// json.Unmarshal reads it.
func TestFastDecodeMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	plan := policy.AppendPlanJSON(nil, &policy.Plan{Backend: "native", Cwd: "/a<b>", Grants: []policy.Grant{{Path: "/w", Write: true, Dev: 1, Ino: 2}},
		Masks: []policy.Mask{{Path: "/home/u/.ssh", Kind: "dir", Why: "credentials", Held: "view"}}, Labels: map[string]string{"k": "v\u2028"}})
	access := json.RawMessage(`{"enforced":true,"backend":"native","read":[],"write":["/w"],"network":{"mode":"proxy","allow":["*.example.com:443"]},"n":-1.5e+3}`)
	strs := []string{"", "a", "native", "x y", "é", "<&>"}
	for i := range 2000 {
		e := Entry{ID: "id" + idSuffix(i), Backend: strs[r.IntN(len(strs))], UID: r.IntN(70000) - 1, OwnerPid: r.IntN(1 << 22), OwnerStart: r.Uint64(),
			Memory: r.Int64() - 1<<62, Pids: r.IntN(5000), Started: time.Unix(r.Int64N(1<<33), r.Int64N(1e9)).UTC(), Depth: r.IntN(3), Within: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			e.PidNS, e.HelperPid, e.HelperStart = r.Uint64(), r.IntN(1<<22), r.Uint64()
			e.Parent = strs[r.IntN(len(strs))]
		}
		if r.IntN(2) == 0 {
			e.Access, e.Plan = access, plan
		}
		if r.IntN(3) == 0 {
			e.Labels = map[string]string{strs[r.IntN(len(strs))]: strs[r.IntN(len(strs))], "team": "a"}
		}
		b, err := e.appendJSON(nil)
		if err != nil {
			continue
		}
		b = append(b, '\n')
		got, ok := decodeEntryFast(b)
		if !ok && !needsSlowPath(e) {
			t.Fatalf("fast path refused %s", b)
		}
		if ok {
			checkSameDecode(t, b, got)
		}
	}
}

// needsSlowPath: a head string json.Marshal escapes ("<&>") is left to
// json.Unmarshal.
func needsSlowPath(e Entry) bool {
	b, _ := json.Marshal(struct {
		A, B, C string
		L       map[string]string
	}{e.ID, e.Backend, e.Parent, e.Labels})
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

func checkSameDecode(t *testing.T, b []byte, got Entry) {
	t.Helper()
	var want Entry
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("fast path accepted what json.Unmarshal refuses (%v): %q", err, b)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q\nfast %+v\njson %+v", b, got, want)
	}
}

func idSuffix(i int) string { return string(rune('a'+i%26)) + string(rune('a'+i/26%26)) }

// FuzzFastDecode: whatever the fast path accepts, json.Unmarshal accepts
// and decodes the same.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"id":"a","backend":"native","uid":0,"owner_pid":1,"owner_start":2,"access":{"a":[1,-0.5e3,"\u0041\n",true,null,{}]},"memory":3,"pids":4,"started":"2026-12-02T01:47:57.05874353Z","plan":{"x":[]}}` + "\n"))
	f.Add([]byte(`{"id":"a","labels":{"k":"v","k":"w"},"within":true,"depth":-1,"pid_ns":0,"plan":[01]}`))
	f.Add([]byte(`{"id":"\u00e9","memory":1e3,"plan":{"a":"\x01"}}`))
	f.Add([]byte(`{"id":"a","plan":{"a":1}} `))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, ok := decodeEntryFast(b); ok {
			checkSameDecode(t, b, got)
		}
	})
}

// TestFastDecodeRefuses: inputs json.Unmarshal reads otherwise or refuses
// go to it.
func TestFastDecodeRefuses(t *testing.T) {
	for _, s := range []string{
		``, `{}`, `{"id":"a"} x`, `{"id":"a","id":"b"}`, `{"ID":"a"}`, `{"id":"a","other":1}`, `{"id":null}`,
		`{"id":"a\u0041"}`, "{\"id\":\"\xff\"}", `{"uid":1.0}`, `{"uid":01}`, `{"uid":99999999999999999999}`, `{"owner_start":-1}`,
		`{"plan":{"a":01}}`, `{"plan":{"a":"\x"}}`, `{"plan":{"a" :1}}`, `{"plan":"s"}`, `{"plan":null}`, `{"plan":{"a":[1,]}}`,
		`{"plan":{"a":"` + "\x01" + `"}}`, `{"plan":{"a":tru}}`, `{"plan":{"a":-}}`, `{"plan":{"a":1.}}`, `{"plan":{"a":1e}}`,
		`{"started":"yesterday"}`, `{"labels":{"a":1}}`, `{"within":1}`, `{ "id":"a"}`,
	} {
		if e, ok := decodeEntryFast([]byte(s)); ok {
			t.Errorf("fast path accepted %q as %+v", s, e)
		}
	}
}

// FuzzValidCompact: what validCompact accepts, json.Valid accepts.
func FuzzValidCompact(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0.5e3,"\u0041\n",true,null,{}]}`, `[01]`, `{"a" :1}`, `"\x"`, `1.`, `-`, `[1,]`, `{"a":"\ud800"}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if validCompact(b) && !json.Valid(b) {
			t.Fatalf("validCompact accepted %q, which is not JSON", b)
		}
	})
}
