package coordinator

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestDecodeRequestStrict: the broker refuses a request with a field it
// does not know anywhere in it, a repeated key or a mistyped value, naming
// the JSON path, and refuses it as malformed (exit 2).
func TestDecodeRequestStrict(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"well-formed", `{"spec":{"command":["true"],"tmpfs":[{"target":"/x","size":"8MiB"}]},"report":true}`, ""},
		{"top level", `{"spec":{"command":["true"]},"reprot":true}`, `unknown field "reprot" at the top level; the fields there are spec, report`},
		{"in the spec", `{"spec":{"command":["true"],"frobnicate":1}}`, `unknown field "frobnicate"`},
		{"deep in the spec", `{"spec":{"command":["true"],"tmpfs":[{"target":"/x","sise":"64GiB"}]}}`, `unknown field "sise" in tmpfs[0]`},
		{"a typo'd grant", `{"spec":{"command":["true"],"access":{"writ":["/srv"]}}}`, `unknown field "writ" in access`},
		{"another case", `{"spec":{"Command":["true"]}}`, `unknown field "Command"`},
		{"repeated command", `{"spec":{"command":["true"],"command":["sh"]}}`, `command is given more than once`},
		{"repeated spec", `{"spec":{"command":["true"]},"Spec":{"command":["sh"]}}`, `Spec is given more than once`},
		{"mistyped", `{"spec":{"command":["true"],"limits":{"pids":"many"}}}`, `limits.pids: want a number, got a string`},
		{"no spec", `{"report":true}`, `has no spec`},
		{"trailing", `{"spec":{"command":["true"]}}{}`, `trailing data`},
		{"not an object", `[]`, `want an object`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := decodeRequest([]byte(c.body))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == "" && (len(req.Spec.Command) != 1 || req.Spec.Tmpfs[0].Size != "8MiB" || !req.Report):
				t.Fatalf("decoded %+v", req)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			case c.want != "" && policy.ExitCode(err) != policy.ExitUsage:
				t.Fatalf("%v: exit %d, want %d", err, policy.ExitCode(err), policy.ExitUsage)
			}
		})
	}
}

// TestRecvRequestStrict: the same through the socket, descriptors and all,
// as the broker receives it.
func TestRecvRequestStrict(t *testing.T) {
	for _, c := range []struct {
		body string
		want string
	}{
		{body: `{"spec":{"command":["true"]},"extra":1}`, want: `unknown field "extra"`},
		{body: `{"spec":{"command":["true"]}}`},
	} {
		a, b := socketPair(t)
		files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
		go sendRaw(a, []byte(c.body), files)
		_, got, err := recvRequest(b)
		for _, f := range got {
			f.Close()
		}
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
		if err != nil && !errors.Is(err, policy.ErrInvalid) {
			t.Errorf("%s: %v is not invalid input", c.body, err)
		}
	}
}

func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dir + "/s", Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err := net.DialUnix("unix", nil, ln.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}
