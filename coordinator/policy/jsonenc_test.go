package policy

import (
	"encoding/json"
	"testing"

	"github.com/acbox/acbox/egress"
)

// jsonStringCases are strings whose encoding has a rule of its own.
var jsonStringCases = []string{
	"", "plain", "/home/u/proj", "sp ace", `q"uote`, `back\slash`, "<tag>&amp;", "\b\f\n\r\t", "\x00\x01\x1f\x7f",
	"é ü 中文 🙂", "\u2028\u2029", "bad\xffutf8", "\xc3", "\xed\xa0\x80", "a\u2027b\u202ac", "\ufffd",
}

// TestAppendJSONString: the hand encoder writes every case as json.Marshal does.
func TestAppendJSONString(t *testing.T) {
	for _, s := range jsonStringCases {
		checkJSONString(t, s)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s)
	}
	f.Fuzz(checkJSONString)
}

func checkJSONString(t *testing.T, s string) {
	want, _ := json.Marshal(s)
	if got := AppendJSONString(nil, s); string(got) != string(want) {
		t.Errorf("%q: got %s, want %s", s, got, want)
	}
}

// TestAccessJSONMatches: the access JSON written by hand is json.Marshal's,
// for each shape of its fields.
func TestAccessJSONMatches(t *testing.T) {
	list := func(s ...string) *[]string { return &s }
	for _, a := range []accessJSON{
		{},
		{Enforced: true, Backend: "native", Read: []string{}, Write: []string{}, Network: accessNetwork{Mode: egress.ModeNone, Allow: list()}},
		{Enforced: false, Backend: "docker", Read: []string{"/a", "/b c"}, Write: []string{"/w<&>"}, Network: accessNetwork{Mode: egress.ModeProxy}},
		{Backend: "native", Read: nil, Write: []string{"\xff"}, Network: accessNetwork{Mode: egress.ModeProxy, Allow: list("*.example.com:443", "a.example")}},
		{Backend: "native", Network: accessNetwork{Mode: egress.ModeHost, ConnectPorts: []uint16{443, 0, 65535}, BindPorts: []uint16{8080}}},
		{Network: accessNetwork{Mode: egress.ModeHost, ConnectPorts: []uint16{}, BindPorts: []uint16{1}}},
		{Network: accessNetwork{Allow: new([]string)}},
	} {
		checkAccessJSON(t, a)
	}
}

func FuzzAccessJSON(f *testing.F) {
	f.Add(true, "native", "/r", "/w", "proxy", "a.example", uint16(443), uint16(0), byte(0))
	f.Add(false, "docker", "", "\u2028<", "none", "", uint16(0), uint16(80), byte(7))
	f.Fuzz(func(t *testing.T, enforced bool, backend, read, write, mode, allow string, connect, bind uint16, shape byte) {
		a := accessJSON{Enforced: enforced, Backend: backend, Network: accessNetwork{Mode: egress.Mode(mode)}}
		if shape&1 != 0 {
			a.Read = []string{read, write}
		}
		if shape&2 != 0 {
			a.Write = []string{write}
		} else {
			a.Write = []string{}
		}
		if shape&4 != 0 {
			a.Network.Allow = &[]string{allow, read}
		}
		if connect != 0 {
			a.Network.ConnectPorts = []uint16{connect, bind}
		}
		if bind != 0 {
			a.Network.BindPorts = []uint16{bind}
		}
		checkAccessJSON(t, a)
	})
}

func checkAccessJSON(t *testing.T, a accessJSON) {
	want, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.appendJSON(nil); string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
