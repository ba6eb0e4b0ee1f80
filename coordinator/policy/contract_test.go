package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestSpecVersion: "version": 1 is the only schema version; absent means
// 1; anything else is a usage error naming the field "version".
func TestSpecVersion(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"absent", `{"command":["x"]}`, ""},
		{"one", `{"version":1,"command":["x"]}`, ""},
		{"two", `{"version":2,"command":["x"]}`, "version 2"},
		{"zero", `{"version":0,"command":["x"]}`, "version 0"},
		{"negative", `{"version":-1,"command":["x"]}`, "version -1"},
		{"string", `{"version":"1","command":["x"]}`, "version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec(strings.NewReader(c.in))
			checkErr(t, err, c.want)
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v: want a usage error", err)
			}
			if c.name != "string" && FieldOf(err) != "version" {
				t.Errorf("field %q, want version", FieldOf(err))
			}
		})
	}
	// A spec built in Go (flags, a profile, the broker) is held to the same.
	if _, err := Resolve(Spec{Version: 3, Command: []string{"x"}}, Host{}); FieldOf(err) != "version" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Resolve with version 3: %v", err)
	}
}
