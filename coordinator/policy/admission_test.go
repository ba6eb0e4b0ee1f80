package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseWait(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"", 0, false},
		{"0s", 0, false},
		{"30s", 30 * time.Second, false},
		{"1h30m", 90 * time.Minute, false},
		{"24h", 24 * time.Hour, false},
		{"25h", 0, true},
		{"-1s", 0, true},
		{"10", 0, true},
		{"soon", 0, true},
	} {
		got, err := ParseWait(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseWait(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
		if err != nil && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "wait")) {
			t.Errorf("ParseWait(%q): %v does not name wait as invalid", tc.in, err)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	many := map[string]string{}
	for i := range maxLabels + 1 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	for _, tc := range []struct {
		name string
		in   map[string]string
		want string // "" for accepted
	}{
		{"none", nil, ""},
		{"plain", map[string]string{"team": "t1", "ci.job/id": "42", "note": "a b, c=d ünï"}, ""},
		{"empty value", map[string]string{"k": ""}, ""},
		{"empty key", map[string]string{"": "v"}, "label key"},
		{"key with space", map[string]string{"a b": "v"}, "label key"},
		{"key starts with dash", map[string]string{"-k": "v"}, "label key"},
		{"key with =", map[string]string{"a=b": "v"}, "label key"},
		{"key too long", map[string]string{strings.Repeat("k", maxLabelKey+1): "v"}, "label key"},
		{"newline", map[string]string{"k": "a\nID FORGED"}, "U+000A"},
		{"tab", map[string]string{"k": "a\tb"}, "U+0009"},
		{"escape", map[string]string{"k": "\x1b[2J"}, "U+001B"},
		{"nul", map[string]string{"k": "a\x00"}, "U+0000"},
		{"bidi override", map[string]string{"k": "a\u202eb"}, "U+202E"},
		{"line separator", map[string]string{"k": "a\u2028b"}, "U+2028"},
		{"invalid utf-8", map[string]string{"k": "a\xffb"}, "invalid UTF-8"},
		{"value too long", map[string]string{"k": strings.Repeat("v", maxLabelValue+1)}, "longer than"},
		{"too many", many, "at most 64"},
	} {
		err := CheckLabels(tc.in)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an invalid-input error naming %q", tc.name, err, tc.want)
		}
	}
}

func TestParseLabelFlag(t *testing.T) {
	if k, v, err := ParseLabelFlag("team=a=b,c"); err != nil || k != "team" || v != "a=b,c" {
		t.Errorf("got %q %q %v", k, v, err)
	}
	if _, _, err := ParseLabelFlag("team"); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Errorf("a label without = : %v", err)
	}
}

// TestResolveChecksWaitAndLabels: Resolve refuses a bad wait or label
// before anything starts, and carries the wait into the plan.
func TestResolveChecksWaitAndLabels(t *testing.T) {
	h := newFixture(t).host
	p, err := Resolve(Spec{Command: []string{"true"}, Wait: "2m", Labels: map[string]string{"team": "t1"}}, h)
	if err != nil || p.Wait != 2*time.Minute || p.Labels["team"] != "t1" {
		t.Fatalf("plan %+v, %v", p, err)
	}
	if _, err := Resolve(Spec{Command: []string{"true"}, Wait: "forever"}, h); !errors.Is(err, ErrInvalid) {
		t.Errorf("wait forever: %v", err)
	}
	if _, err := Resolve(Spec{Command: []string{"true"}, Labels: map[string]string{"k": "a\nb"}}, h); !errors.Is(err, ErrInvalid) {
		t.Errorf("a label with a newline: %v", err)
	}
}

func FuzzCheckLabels(f *testing.F) {
	f.Add("team", "t1")
	f.Add("a/b", "x\x1by")
	f.Fuzz(func(t *testing.T, k, v string) {
		if CheckLabels(map[string]string{k: v}) != nil {
			return
		}
		for _, r := range k + v {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Fatalf("accepted %q=%q", k, v)
			}
		}
	})
}

func FuzzParseWait(f *testing.F) {
	f.Add("10m")
	f.Add("-5s")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseWait(s)
		if err == nil && (d < 0 || d > MaxWait) {
			t.Fatalf("ParseWait(%q) = %v", s, d)
		}
	})
}
