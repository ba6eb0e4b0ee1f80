package landlock

import (
	"encoding/json"
	"testing"
)

// TestAppendJSONIsMarshal: the hand-written JSON is encoding/json's, byte
// for byte, for the reports acbox makes and for odd strings.
func TestAppendJSONIsMarshal(t *testing.T) {
	for _, r := range []Report{
		{},
		{ABI: 6, Enforced: true, HandledFS: []string{"execute", "write_file"}, HandledNet: []string{}, Scoped: []string{"signal"}, Missing: nil, Rules: 12},
		{ABI: -1, HandledFS: []string{"\"\\\n\r\t\b\f\x00\x1f<>&\u2028\u2029é\xff", ""}},
		Plan(Rules{ReadOnly: []string{"/usr"}, RestrictTCP: true, ConnectTCP: []uint16{443}}, 6),
	} {
		checkAppendJSON(t, r)
	}
}

func checkAppendJSON(t *testing.T, r Report) {
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.AppendJSON(nil); string(got) != string(want) {
		t.Errorf("%+v:\n got %s\nwant %s", r, got, want)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("execute", 3, true)
	f.Add("\xff\u2028<\x01", -7, false)
	f.Fuzz(func(t *testing.T, s string, abi int, enforced bool) {
		checkAppendJSON(t, Report{ABI: abi, Enforced: enforced, HandledFS: []string{s}, Scoped: []string{s, s}, Rules: abi})
	})
}
