package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestParseSpecStrict: spec errors name the JSON path and say what JSON
// was wanted, never a Go type; repeated keys, null, an empty cwd and
// fields in another case are refused.
func TestParseSpecStrict(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"ok", `{"command":["x"],"access":{"read":["/a","/b"]},"env":{"A":"1","a":"2"}}`, ""},
		{"wrong type in an array", `{"command":["x"],"access":{"read":["/a","/b",3]}}`, `access.read[2]: want a string, got the number 3`},
		{"command as a string", `{"command":"ls -l"}`, `command: want an array, got a string`},
		{"object for an array", `{"command":["x"],"tmpfs":{"target":"/x"}}`, `tmpfs: want an array, got an object`},
		{"deep unknown", `{"command":["x"],"tmpfs":[{"target":"/x","sise":"1GiB"}]}`, `unknown field "sise" in tmpfs[0]; the fields there are target, size`},
		{"top-level unknown", `{"command":["x"],"acess":{}}`, `unknown field "acess" at the top level`},
		{"another case", `{"Command":["x"]}`, `unknown field "Command" at the top level`},
		{"duplicate key", `{"command":["x"],"command":["rm","-rf","/"]}`, `command is given more than once`},
		{"duplicate key in another case", `{"cwd":"/a","limits":{"pids":5,"PIDS":5000}}`, `limits.PIDS is given more than once`},
		{"duplicate map key", `{"command":["x"],"env":{"A":"1","A":"2"}}`, `env.A is given more than once: give it once`},
		{"duplicate in a mount", `{"command":["x"],"mounts":[{"source":"/a","readonly":true,"readonly":false}]}`, `mounts[0].readonly is given more than once`},
		{"port out of range", `{"command":["x"],"access":{"network":{"mode":"host","connect_ports":[443,70000]}}}`, `access.network.connect_ports[1]: want a whole number from 0 to 65535, got 70000`},
		{"fractional pids", `{"command":["x"],"limits":{"pids":1.5}}`, `limits.pids: want a whole number`},
		{"bool as string", `{"command":["x"],"tty":"yes"}`, `tty: want true or false, got a string`},
		{"null string", `{"command":["x"],"cwd":null}`, `cwd is null`},
		{"null in an array", `{"command":["x",null]}`, `command[1] is null`},
		{"null allow keeps its message", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":null}}}`, `omit it for any public destination`},
		{"null readonly is the default", `{"command":["x"],"mounts":[{"source":"/a","readonly":null}]}`, ""},
		{"empty cwd", `{"command":["x"],"cwd":""}`, `cwd is ""`},
		{"zero pids", `{"command":["x"],"limits":{"pids":0}}`, `limits.pids is 0`},
		{"positive pids", `{"command":["x"],"limits":{"pids":10}}`, ""},
		{"NUL in the command", `{"command":["sh\u0000x"]}`, `command[0]: holds a NUL byte`},
		{"NUL in an env value", `{"command":["x"],"env":{"A":"1\u0000"}}`, `env.A: holds a NUL byte`},
		{"NUL in an env key", `{"command":["x"],"env":{"A\u0000B":"1"}}`, `env."A\x00B": holds a NUL byte`},
		{"NUL in a tmpfs target", `{"command":["x"],"tmpfs":[{"target":"/x\u0000"}]}`, `tmpfs[0].target: holds a NUL byte`},
		{"NUL in a mount target", `{"command":["true"],"mounts":[{"source":"/usr/bin","target":"/x\u0000"}]}`, `mounts[0].target: holds a NUL byte`},
		{"NUL in a grant", `{"command":["x"],"access":{"write":["/w\u0000/x"]}}`, `access.write[0]: holds a NUL byte`},
		{"NUL in an allowed host", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":["a\u0000.com"]}}}`, `access.network.allow[0]: holds a NUL byte`},
		{"raw NUL byte", "{\"command\":[\"a\x00\"]}", "not valid JSON"},
		{"trailing", `{"command":["x"]} {}`, "trailing data"},
		{"truncated", `{"command":["x"]`, "ends too early"},
		{"syntax", `{"command":["x"],}`, "not valid JSON at byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec(strings.NewReader(c.in))
			checkErr(t, err, c.want)
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v is not invalid input", err)
			}
			for _, goish := range []string{"Go struct", "Go value", "[]string", "uint16", "coordinator."} {
				if strings.Contains(err.Error(), goish) {
					t.Errorf("%v names a Go type (%s)", err, goish)
				}
			}
		})
	}
}

// TestDecodeStrictRawMessage: a json.RawMessage field is taken as is (the
// broker's request holds the spec that way, to parse it with ParseSpec).
func TestDecodeStrictRawMessage(t *testing.T) {
	var r struct {
		Spec   json.RawMessage `json:"spec"`
		Report bool            `json:"report"`
	}
	if err := DecodeStrict([]byte(`{"spec":{"anything":[1,{"x":null}]},"report":true}`), &r); err != nil || string(r.Spec) != `{"anything":[1,{"x":null}]}` || !r.Report {
		t.Fatalf("%s %v %v", r.Spec, r.Report, err)
	}
	checkErr(t, DecodeStrict([]byte(`{"spec":{},"reprot":true}`), &r), `unknown field "reprot"`)
	checkErr(t, DecodeStrict([]byte(`{"spec":{},"SPEC":{}}`), &r), `SPEC is given more than once`)
}

// TestCheckNoNUL: a spec built any way (flags included) is refused when a
// string in it holds a NUL byte, and the JSON path is named.
func TestCheckNoNUL(t *testing.T) {
	ok := Spec{Command: []string{"sh", "-c", "true"}, Env: map[string]string{"A": "1"}}
	if err := CheckNoNUL(ok); err != nil {
		t.Fatalf("a clean spec: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"command", func(s *Spec) { s.Command = []string{"sh", "x\x00"} }, "command[1]: holds a NUL byte"},
		{"env value", func(s *Spec) { s.Env = map[string]string{"A": "\x00"} }, "env.A: holds a NUL byte"},
		{"env key", func(s *Spec) { s.Env = map[string]string{"A\x00": "1"} }, `env."A\x00": holds a NUL byte`},
		{"write grant", func(s *Spec) { s.Access.Write = []string{"/w\x00"} }, "access.write[0]: holds a NUL byte"},
		{"tmpfs target", func(s *Spec) { s.Tmpfs = []TmpfsSpec{{Target: "/x\x00"}} }, "tmpfs[0].target: holds a NUL byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok
			c.edit(&s)
			err := CheckNoNUL(s)
			checkErr(t, err, c.want)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v is not invalid input (status 2)", err)
			}
		})
	}
}
