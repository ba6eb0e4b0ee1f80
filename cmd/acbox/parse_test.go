package main

import (
	"io"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// newParser builds the parser Main builds, without running anything.
func newParser(t testing.TB, cli any) *kong.Kong {
	t.Helper()
	opts := append(parseOptions(), kong.Name("acbox"), kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) {}))
	p, err := kong.New(cli, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoFlagSplits walks every flag of both command trees: none may split
// its value on a separator, so a flag added later cannot bring kong's
// comma splitting back.
func TestNoFlagSplits(t *testing.T) {
	for _, cli := range []any{&CLI{}, &runOnly{}} {
		p := newParser(t, cli)
		n := 0
		kong.Visit(p.Model, func(v kong.Visitable, next kong.Next) error {
			if f, ok := v.(*kong.Flag); ok {
				n++
				if f.Tag.Sep != -1 || f.Tag.MapSep != -1 {
					t.Errorf("--%s splits its value (sep %q, mapsep %q)", f.Name, f.Tag.Sep, f.Tag.MapSep)
				}
			}
			return next(nil)
		})
		if n < 20 {
			t.Fatalf("walked only %d flags: the walk is broken", n)
		}
	}
}

// TestWholeValues: a comma is part of the value.
func TestWholeValues(t *testing.T) {
	var c runOnly
	if _, err := newParser(t, &c).Parse([]string{"run", "--env", "FOO=a,b", "-r", "/w/a,b", "--allow", "a.com,b.com", "--", "x"}); err != nil {
		t.Fatal(err)
	}
	f := c.Run.LaunchFlags
	if len(f.Env) != 1 || f.Env[0] != "FOO=a,b" || len(f.Read) != 1 || f.Read[0] != "/w/a,b" || len(f.Allow) != 1 {
		t.Fatalf("values were split: env %q read %q allow %q", f.Env, f.Read, f.Allow)
	}
}

// TestFlagValuesRefused: values that would read as the default, and
// values of the wrong form, are refused with exit 2 in acbox's words,
// naming the flag and the form wanted (never a Go type).
func TestFlagValuesRefused(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--memory", "", "--", "true"}, "--memory: the value is empty"},
		{[]string{"run", "--cwd=", "--", "true"}, "--cwd: the value is empty"},
		{[]string{"run", "--profile", "", "--", "true"}, "--profile: the value is empty"},
		{[]string{"run", "--image", "", "--", "true"}, "--image: the value is empty"},
		{[]string{"run", "--allow", "", "--", "true"}, "--allow: the value is empty"},
		{[]string{"run", "--backend", "", "--", "true"}, "--backend: the value is empty"},
		{[]string{"run", "--report", "", "--", "true"}, "--report: the value is empty"},
		{[]string{"plan", "--spec", "", "--", "true"}, "--spec: the value is empty"},
		{[]string{"run", "--wait=", "--", "true"}, "--wait: the value is empty"}, // read as no wait; the spec refuses "wait": ""
		{[]string{"run", "--pids", "0", "--", "true"}, "--pids: 0 would read as leaving the flag out"},
		{[]string{"run", "--pids", "x", "--", "true"}, `--pids: want a whole number such as 64, got "x"`},
		{[]string{"run", "--pids", "99999999999999999999", "--", "true"}, "--pids: want a whole number"},
		{[]string{"run", "--status-fd", "x", "--", "true"}, "--status-fd: want a whole number"},
		{[]string{"run", "--net", "host", "--bind-port", "0", "--", "true"}, "--bind-port: want a TCP port number from 1 to 65535"},
		{[]string{"run", "--net", "host", "--connect-port", "70000", "--", "true"}, `--connect-port: want a TCP port number from 1 to 65535, got "70000"`},
		{[]string{"proxy", "--socket", ""}, "--socket: the value is empty: give a value"},
		{[]string{"plan", "--spec", "/nonexistent"}, "--spec /nonexistent cannot be read (no such file or directory)"},
		{[]string{"run", "--report", "/nonexistent/r.json", "--", "true"}, "--report /nonexistent/r.json cannot be written"},
	}
	for _, c := range cases {
		_, errs, code := runMain(t, t.TempDir(), c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q in:\n%s", c.args, code, c.want, errs)
		}
		for _, goWord := range []string{" bit ", "int value", "uint", "expected a"} {
			if strings.Contains(errs, goWord) {
				t.Errorf("%q: message speaks Go (%q):\n%s", c.args, goWord, errs)
			}
		}
	}
}

// TestEmptyCommandArgument: an argument of the command may be empty.
func TestEmptyCommandArgument(t *testing.T) {
	var c runOnly
	if _, err := newParser(t, &c).Parse([]string{"run", "--", "sh", "-c", "", ""}); err != nil {
		t.Fatal(err)
	}
	if got := c.Run.Command; len(got) < 4 {
		t.Fatalf("command %q lost its empty arguments", got)
	}
}

// FuzzParseArgs: no argument list makes the parser panic.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"run\x00--env\x00A=b,c\x00--\x00true", "run\x00--pids\x00-1", "plan\x00--bind-port\x0065536",
		"run\x00--tty=maybe", "proxy\x00--socket=", "run\x00--mount\x00a:b:c:d", "ps\x00--json", "gc\x00-h",
		"run\x00-rw\x00.", "stop\x00--\x00x", "run\x00--memory=2\x00--tmpfs\x00/x:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		if len(args) > 0 && args[0] == "run" {
			newParser(t, &runOnly{}).Parse(args)
		}
		newParser(t, &CLI{}).Parse(args)
	})
}

// TestRunHelpExamples: `acbox run --help` ends with the worked examples,
// and each parses as written (tests/integration runs the first).
func TestRunHelpExamples(t *testing.T) {
	out, _, code := runMain(t, t.TempDir(), "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	i := strings.Index(out, "\nExamples:\n")
	if i < 0 || len(runExamples) != 3 {
		t.Fatalf("no examples at the end of the help:\n%s", out)
	}
	tail := out[i:]
	for _, e := range runExamples {
		if !strings.Contains(tail, "$ acbox "+shellLine(e.Args)+"\n") {
			t.Errorf("help lacks %q", e.Args)
		}
		var c runOnly
		if _, err := newParser(t, &c).Parse(e.Args); err != nil {
			t.Errorf("example %q does not parse: %v", e.Args, err)
		}
		var full CLI
		if _, err := newParser(t, &full).Parse(e.Args); err != nil {
			t.Errorf("example %q does not parse in the full tree: %v", e.Args, err)
		}
	}
	if other, _, _ := runMain(t, t.TempDir(), "plan", "--help"); strings.Contains(other, "Examples:") {
		t.Error("the examples of run appear in plan's help")
	}
}
