package policy

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Waiting for an admission slot (--wait, "wait" in the spec) and labels
// (--label, "labels") say nothing about what the member may reach: they
// are about admission and listing, and are checked here so that a bad
// value is refused before anything starts.

const (
	// DefaultWait is how long a bare --wait queues for a slot.
	DefaultWait = 10 * time.Minute
	// MaxWait bounds a wait: a day is longer than any CI job's timeout.
	MaxWait = 24 * time.Hour
	// maxLabels, maxLabelKey and maxLabelValue bound what a launch
	// records in the registry and shows in acbox ps.
	maxLabels     = 64
	maxLabelKey   = 128
	maxLabelValue = 1024
)

// ParseWait reads a wait as Go writes durations ("90s", "10m", "1h30m"):
// "" and "0s" mean no wait (refused at once when no slot is free).
func ParseWait(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, invalid("wait %q: want a duration such as 30s, 10m or 1h (0s: do not wait)", s)
	}
	if d > MaxWait {
		return 0, invalid("wait %q: at most %v", s, MaxWait)
	}
	return d, nil
}

// CheckLabels refuses labels that could not be shown as written: keys
// other than 1-128 letters, digits, '.', '-', '_' or '/' starting with a
// letter or digit; values with control or format characters (a newline,
// an escape sequence or a bidi override would forge acbox ps's output)
// or invalid UTF-8; more than 64 labels.
func CheckLabels(m map[string]string) error {
	if len(m) > maxLabels {
		return invalid("%d labels: at most %d", len(m), maxLabels)
	}
	for k, v := range m {
		if !validLabelKey(k) {
			return invalid("label key %q: want 1-%d letters, digits, '.', '-', '_' or '/', starting with a letter or digit", k, maxLabelKey)
		}
		if len(v) > maxLabelValue {
			return invalid("label %s: the value is longer than %d bytes", k, maxLabelValue)
		}
		if r, bad := badLabelRune(v); bad {
			return invalid("label %s: the value holds %s; labels are shown by acbox ps and must be printable text", k, describeRune(r))
		}
	}
	return nil
}

// ParseLabelFlag splits --label KEY=VALUE (the value may be empty).
func ParseLabelFlag(kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return "", "", invalid("--label %q: want KEY=VALUE", kv)
	}
	return k, v, nil
}

func validLabelKey(k string) bool {
	if k == "" || len(k) > maxLabelKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune("._-/", rune(c))) {
			return false
		}
	}
	return true
}

func badLabelRune(v string) (rune, bool) {
	for _, r := range v {
		if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return r, true
		}
	}
	return 0, false
}

func describeRune(r rune) string {
	if r == utf8.RuneError {
		return "invalid UTF-8"
	}
	return fmt.Sprintf("the control character %U", r)
}
