package main

import (
	"strings"
	"testing"
)

// TestFlagGivenTwice: a flag that takes one value, given twice, is a usage
// error (exit 2) naming it, on both parse paths of `run` and on other
// commands; repeatable flags and plain switches are not.
func TestFlagGivenTwice(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string // "" : not refused for repetition
	}{
		{[]string{"run", "--memory", "1GiB", "--memory", "2GiB", "--", "true"}, "--memory"},
		{[]string{"run", "--net", "none", "--net=host", "--", "true"}, "--net"},
		{[]string{"run", "--tty", "--no-tty", "--", "true"}, "--tty"},
		{[]string{"run", "--wait=1s", "--wait", "--", "true"}, "--wait"},
		{[]string{"run", "-x", "--pids", "100", "--pids", "200", "--", "true"}, ""}, // -x: unknown, refused first
		{[]string{"run", "--pids", "100", "--spec", "a", "--pids", "200", "--", "true"}, "--pids"},
		{[]string{"stop", "--grace", "1s", "--grace", "2s", "abc"}, "--grace"},
		{[]string{"run", "-r", "/a", "-r", "/b", "--bogus"}, ""},
		{[]string{"run", "--best-effort", "--best-effort", "--bogus"}, ""},
	} {
		_, errs, code := runMain(t, t.TempDir(), tc.args...)
		refused := strings.Contains(errs, "is given more than once")
		if tc.flag == "" {
			if refused {
				t.Errorf("%q: refused as repeated: %s", tc.args, errs)
			}
			continue
		}
		if code != 2 || !refused || !strings.Contains(errs, tc.flag+" is given more than once") {
			t.Errorf("%q: exit %d, %s; want 2 naming %s", tc.args, code, errs, tc.flag)
		}
	}
}
