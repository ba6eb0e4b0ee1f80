//go:build linux

package probe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// prefixes ties each ID prefix to the categories it may carry.
var prefixes = map[string][]string{
	"fs": {Filesystem}, "proc": {Process}, "kernel": {Kernel}, "term": {Terminal}, "net": {Network}, "proxy": {Network},
	"info": {Information}, "env": {Environment}, "res": {Resources},
}

func TestCatalogueIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Catalogue() {
		if seen[p.ID] {
			t.Errorf("%s: duplicate ID", p.ID)
		}
		seen[p.ID] = true
		pre, _, ok := strings.Cut(p.ID, ".")
		if !ok || !slices.Contains(prefixes[pre], p.Category) {
			t.Errorf("%s: category %q does not match the ID's prefix", p.ID, p.Category)
		}
		if p.Expect == "" || p.Source == "" || p.Run == nil {
			t.Errorf("%s: needs Expect, Source and Run", p.ID)
		}
		if strings.Contains(p.Source, "?") {
			t.Errorf("%s: source %q is a placeholder", p.ID, p.Source)
		}
		if _, ok := featureChecks[p.Needs]; p.Needs != "" && !ok {
			t.Errorf("%s: needs %q, which no feature check knows", p.ID, p.Needs)
		}
	}
}

func TestCatalogueHasEnoughInsideProbes(t *testing.T) {
	n := 0
	for _, p := range Catalogue() {
		if !p.Destructive {
			n++
		}
	}
	if n < 60 {
		t.Errorf("%d non-destructive probes, want at least 60 (issue 8)", n)
	}
}

// TestNeedsSkipsWhereTheKernelLacks: a probe whose feature the runner
// found missing skips without running.
func TestNeedsSkipsWhereTheKernelLacks(t *testing.T) {
	ran := false
	p := Probe{ID: "kernel.x", Needs: "clone3", Run: func(*Env) Outcome { ran = true; return passf("refused") }}
	if o := runOne(p, &Env{Lacks: []string{"clone3"}}); o.Result != Skip || ran {
		t.Errorf("lacking: %+v, ran %v", o, ran)
	}
	if o := runOne(p, &Env{}); o.Result != Pass || !ran {
		t.Errorf("present: %+v, ran %v", o, ran)
	}
}

func TestSelection(t *testing.T) {
	destructive := Probe{ID: "res.x", Destructive: true}
	plain := Probe{ID: "fs.x"}
	for _, tc := range []struct {
		name string
		sel  Selection
		p    Probe
		want bool
	}{
		{"default runs plain", Selection{}, plain, true},
		{"default skips destructive", Selection{}, destructive, false},
		{"all runs destructive", Selection{Destructive: true}, destructive, true},
		{"only picks by id", Selection{Only: []string{"res.x"}}, destructive, true},
		{"only excludes others", Selection{Only: []string{"res.x"}}, plain, false},
	} {
		if got := tc.sel.wants(tc.p); got != tc.want {
			t.Errorf("%s: wants = %v", tc.name, got)
		}
	}
}

// TestRunWritesOneLinePerProbe runs one harmless probe (the hostname) on
// the test host, where it fails, and checks the line's shape.
func TestRunWritesOneLinePerProbe(t *testing.T) {
	var buf bytes.Buffer
	bad := Run(&buf, Selection{Only: []string{"info.hostname"}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d lines: %q", len(lines), buf.String())
	}
	var l Line
	if err := json.Unmarshal([]byte(lines[0]), &l); err != nil {
		t.Fatal(err)
	}
	if l.ID != "info.hostname" || l.Category != Information || l.Expect == "" || l.Source == "" {
		t.Errorf("line %+v", l)
	}
	if (l.Result == Fail) != (bad == 1) {
		t.Errorf("Run returned %d for result %s", bad, l.Result)
	}
}

func TestWorst(t *testing.T) {
	for _, tc := range []struct {
		in   []Outcome
		want Result
	}{
		{[]Outcome{passf("a"), failf("b")}, Fail},
		{[]Outcome{passf("a"), errorf("b")}, Error},
		{[]Outcome{passf("a"), skipf("b")}, Pass},
		{nil, Skip},
	} {
		if got := worst(tc.in...); got.Result != tc.want {
			t.Errorf("worst(%v) = %s, want %s", tc.in, got.Result, tc.want)
		}
	}
	if d := worst(passf("a"), passf(""), failf("b")).Detail; d != "a; b" {
		t.Errorf("detail %q", d)
	}
}

func TestFlagNamesMatchKong(t *testing.T) {
	want := map[string]string{"TCPPort": "tcp-port", "HostCanary": "host-canary", "UID": "uid", "MqName": "mq-name", "ShmKey": "shm-key"}
	typ := reflect.TypeOf(Env{})
	for field, flag := range want {
		f, _ := typ.FieldByName(field)
		if got := flagName(f); got != flag {
			t.Errorf("%s: %q, want %q", field, got, flag)
		}
	}
}

func TestEnvArgsSkipsZeroValues(t *testing.T) {
	got := Env{TCPPort: 80, Mounts: []string{"/a", "/b,c"}}.Args()
	want := []string{"--tcp-port=80", "--mounts=/a", "--mounts=/b,c", "--uid=0"}
	if !slices.Equal(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
}

// TestJoinOracles: a paired probe's info takes its oracle's verdict.
func TestJoinOracles(t *testing.T) {
	lines := JoinOracles([]Line{
		{ID: "net.udp-host-loopback", Result: Info, Detail: "sent"},
		{ID: "fs.write-host-path", Result: Pass, Detail: "denied"},
		{ID: "oracle.udp-received", Result: Fail, Detail: "1 reached the host"},
		{ID: "oracle.host-dir-unchanged", Result: Pass, Detail: "unchanged"},
	})
	if l := lines[0]; l.Result != Fail || !strings.Contains(l.Detail, "1 reached the host") {
		t.Errorf("joined: %+v", l)
	}
	if l := lines[1]; l.Result != Pass || l.Detail != "denied" {
		t.Errorf("a probe with its own verdict keeps it: %+v", l)
	}
}
