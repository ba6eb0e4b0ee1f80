package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestExitCodeTaxonomy: each class of error has its documented status.
func TestExitCodeTaxonomy(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"none", nil, 0},
		{"usage", invalid("bad"), ExitUsage},
		{"refused", refuse("/", "no", "yes"), ExitRefused},
		{"cannot sandbox", fmt.Errorf("%w: no user namespaces", ErrCannotSandbox), ExitCannotSandbox},
		{"unclassified", errors.New("boom"), ExitCannotSandbox},
		{"not found", &ExecError{Command: "x", Class: ExecNotFound}, ExitNotFound},
		{"cannot execute", &ExecError{Command: "x", Class: ExecDenied}, ExitCannotExecute},
		{"too big", &ExecError{Command: "x", Class: ExecTooBig}, ExitRefused},
		{"unchecked wins", errors.Join(ErrUnchecked, &ExecError{Class: ExecNotFound}), ExitUnchecked},
		{"field kept", AtField("cwd", refuse("x", "y", "")), ExitRefused},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestExecClass: errnos of looking up and executing a command map to the
// classes env(1) distinguishes.
func TestExecClass(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "stat", Path: "/x", Err: syscall.ENOENT}, ExecNotFound},
		{&os.SyscallError{Syscall: "execve", Err: syscall.ENOTDIR}, ExecNotFound},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.EACCES}, ExecDenied},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ENOEXEC}, ExecDenied},
		{syscall.EISDIR, ExecDenied},
		{fs.ErrPermission, ExecDenied},
		{&fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.E2BIG}, ExecTooBig},
		{syscall.ENOMEM, ""},
		{errors.New("other"), ""},
	} {
		if got := ExecClass(tc.err); got != tc.want {
			t.Errorf("ExecClass(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestFieldAndRemedy: the refused event's field and remedy come from the
// error: the innermost field named, the first next step.
func TestFieldAndRemedy(t *testing.T) {
	r := &RefusedError{Subject: "/", Why: "whole", Instead: "grant less"}
	for _, tc := range []struct {
		name          string
		err           error
		field, remedy string
	}{
		{"refusal alone", r, "", "grant less"},
		{"refusal at a field", AtField("access.read[0]", r), "access.read[0]", "grant less"},
		{"inner field wins", AtField("access", AtField("access.read[1]", r)), "access.read[1]", "grant less"},
		{"wrapped", fmt.Errorf("%w: more", AtField("cwd", r)), "cwd", "grant less"},
		{"joined", errors.Join(errors.New("a"), AtField("tmpfs", r)), "tmpfs", "grant less"},
		{"remedy outside", WithRemedy("", "check the file", invalid("x")), "", "check the file"},
		{"exec", &ExecError{Command: "x", Class: ExecNotFound}, "command[0]", "grant the directory that holds it with --read, or mount it with --mount"},
		{"plain", errors.New("x"), "", ""},
	} {
		if f, rem := FieldOf(tc.err), Remedy(tc.err); f != tc.field || rem != tc.remedy {
			t.Errorf("%s: field %q remedy %q, want %q %q", tc.name, f, rem, tc.field, tc.remedy)
		}
		if tc.err.Error() != strings.TrimSpace(tc.err.Error()) {
			t.Errorf("%s: text changed", tc.name)
		}
	}
}

// TestResolveNamesTheField: a refusal from Resolve names the spec field
// as a JSON path.
func TestResolveNamesTheField(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("a", MaxArgStrlen)
	for _, tc := range []struct {
		name  string
		spec  Spec
		field string
		code  int
	}{
		{"read grant", Spec{Command: []string{"true"}, Access: Access{Read: []string{f.host.Home + "/proj", "/"}}}, "access.read[1]", ExitRefused},
		{"write grant", Spec{Command: []string{"true"}, Access: Access{Write: []string{"/tmp"}}}, "access.write[0]", ExitRefused},
		{"cwd", Spec{Command: []string{"true"}, Cwd: f.host.Home + "/other"}, "cwd", ExitRefused},
		{"no command", Spec{}, "command", ExitUsage},
		{"backend", Spec{Command: []string{"true"}, Backend: "vm"}, "backend", ExitUsage},
		{"long argument", Spec{Command: []string{"echo", big}}, "command[1]", ExitRefused},
		{"long variable", Spec{Command: []string{"true"}, Env: map[string]string{"BIG": big}}, "env.BIG", ExitRefused},
		{"too much in all", Spec{Command: []string{"true"}, Env: manyVars(40, MaxArgStrlen/2)}, "env", ExitRefused},
	} {
		_, err := Resolve(tc.spec, f.host)
		if FieldOf(err) != tc.field || ExitCode(err) != tc.code {
			t.Errorf("%s: %v: field %q exit %d, want %q %d", tc.name, err, FieldOf(err), ExitCode(err), tc.field, tc.code)
		}
	}
}

func manyVars(n, size int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("V%d", i)] = strings.Repeat("v", size)
	}
	return m
}

// TestSpecErrorsNameTheField: the strict decoder's errors name the JSON
// path of what they refuse.
func TestSpecErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ json, field string }{
		{`{"command":["true"],"bogus":1}`, "bogus"},
		{`{"command":["true"],"access":{"raed":[]}}`, "access.raed"},
		{`{"command":"true"}`, "command"},
		{`{"command":["true"],"cwd":"a","cwd":"b"}`, "cwd"},
		{`{"command":["true"],"access":{"read":["x",1]}}`, "access.read[1]"},
		{`{"command":["true"],"cwd":""}`, "cwd"},
	} {
		_, err := ParseSpec(strings.NewReader(tc.json))
		if FieldOf(err) != tc.field || ExitCode(err) != ExitUsage {
			t.Errorf("%s: %v: field %q exit %d, want %q 2", tc.json, err, FieldOf(err), ExitCode(err), tc.field)
		}
	}
}
