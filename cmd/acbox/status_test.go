package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// statusFake answers availability and, with checks, host checks.
type statusFake struct {
	backend.Backend // unused methods panic
	avail           backend.Availability
}

func (f statusFake) Available(context.Context) backend.Availability { return f.avail }

type statusChecking struct {
	statusFake
	checks []backend.Check
}

func (c statusChecking) HostChecks() []backend.HostCheck {
	var out []backend.HostCheck
	for _, k := range c.checks {
		out = append(out, backend.HostCheck{Name: k.Name, Run: func() backend.Check { return k }})
	}
	return out
}

var (
	upNative   = statusFake{avail: backend.Availability{Backend: "native", Available: true}}
	downDocker = statusFake{avail: backend.Availability{Backend: "docker", Why: "no daemon", Remedy: "start it"}}
	// downBare names no remedy; status gives the generic one apart.
	downBare = statusFake{avail: backend.Availability{Backend: "docker", Why: "no daemon"}}
)

// TestStatus: each wired backend is asked, in order, in both formats.
func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		json bool
		want string
	}{
		{"text", false, "native: available\ndocker: unavailable: no daemon; start it\n"},
		{"json", true, `[
  {
    "backend": "native",
    "available": true
  },
  {
    "backend": "docker",
    "available": false,
    "reason": "no daemon",
    "remedy": "start it"
  }
]
`},
	} {
		var out strings.Builder
		if err := (&StatusCmd{JSON: tc.json}).Run(&Streams{Out: &out}, []backend.Backend{upNative, downDocker}); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, out.String(), tc.want)
		}
	}
}

// TestStatusNoBackend: with no backend available, status still prints
// each one's reason, then fails as "this host cannot sandbox" (126); with
// one available it succeeds.
func TestStatusNoBackend(t *testing.T) {
	for _, tc := range []struct {
		name string
		bs   []backend.Backend
		want int
	}{
		{"none available", []backend.Backend{downDocker, downDocker}, policy.ExitCannotSandbox},
		{"one available", []backend.Backend{downDocker, upNative}, 0},
	} {
		for _, asJSON := range []bool{false, true} {
			var out strings.Builder
			err := (&StatusCmd{JSON: asJSON}).Run(&Streams{Out: &out}, tc.bs)
			if got := policy.ExitCode(err); got != tc.want {
				t.Errorf("%s (json %v): exit %d (%v), want %d", tc.name, asJSON, got, err, tc.want)
			}
			if !strings.Contains(out.String(), "no daemon") {
				t.Errorf("%s (json %v): the reasons are not printed: %q", tc.name, asJSON, out.String())
			}
			if err != nil && !strings.Contains(err.Error(), "acbox doctor") {
				t.Errorf("%s: the failure does not name acbox doctor: %v", tc.name, err)
			}
		}
	}
}

// TestStatusRemedyApart: in JSON every unavailable backend has a remedy
// apart from its reason (contract 1), the generic one when the backend
// names none; the text form joins them.
func TestStatusRemedyApart(t *testing.T) {
	var out strings.Builder
	// The only backend is down: status exits 126 (TestStatusNoBackend)
	// after printing it.
	if err := (&StatusCmd{JSON: true}).Run(&Streams{Out: &out}, []backend.Backend{downBare}); err != nil && !errors.Is(err, policy.ErrCannotSandbox) {
		t.Fatal(err)
	}
	var st []map[string]any
	if err := json.Unmarshal([]byte(out.String()), &st); err != nil || len(st) != 1 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if st[0]["reason"] != "no daemon" || st[0]["remedy"] != "run `acbox doctor` for the failing step and its remedy" {
		t.Errorf("got %v", st[0])
	}
	out.Reset()
	(&StatusCmd{}).Run(&Streams{Out: &out}, []backend.Backend{downBare})
	if want := "docker: unavailable: no daemon; run `acbox doctor` for the failing step and its remedy\n"; out.String() != want {
		t.Errorf("text: %q, want %q", out.String(), want)
	}
}

// TestDoctor: the policy digest first, then only backends with host
// checks are examined, their checks then their launch; any failure is
// ErrCannotSandbox.
func TestDoctor(t *testing.T) {
	digestOK := "ok   policy digest      the built-in policy computes the digest this binary reports: " + policy.PolicyDigest() + "\n"
	ok := backend.Check{Name: "landlock", OK: true, Detail: "ABI 7"}
	bad := backend.Check{Name: "pty", Detail: "no ptmx", Remedy: "mount devpts\nthen retry"}
	for _, tc := range []struct {
		name    string
		b       statusChecking
		want    string
		wantErr bool
	}{
		{"all ok", statusChecking{upNative, []backend.Check{ok}},
			"ok   landlock           ABI 7\nok   sandbox launch     a real sandbox ran `true` with every control\n", false},
		{"a check fails", statusChecking{upNative, []backend.Check{bad}},
			"FAIL pty                no ptmx\n     remedy: mount devpts\n     then retry\nok   sandbox launch     a real sandbox ran `true` with every control\n", true},
		{"launch fails", statusChecking{downDocker, nil},
			"FAIL sandbox launch     no daemon; start it\n     remedy: the error above names the step that failed and its remedy; --backend docker needs none of these\n", true},
	} {
		var out strings.Builder
		err := (&DoctorCmd{}).Run(&Streams{Out: &out}, []backend.Backend{tc.b, downDocker})
		if tc.want = digestOK + tc.want; out.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, out.String(), tc.want)
		}
		if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, policy.ErrCannotSandbox)) {
			t.Errorf("%s: err %v, want error %v", tc.name, err, tc.wantErr)
		}
	}
}

// TestVersionJSON: the contract's keys of `acbox version --json`.
func TestVersionJSON(t *testing.T) {
	out, errb, code := runMain(t, t.TempDir(), "version", "--json")
	if code != 0 {
		t.Fatalf("%d: %s", code, errb)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v["contract"] != float64(1) || v["version"] != releaseVersion() {
		t.Errorf("contract %v version %v", v["contract"], v["version"])
	}
	for _, k := range []string{"commit", "go", "policy_digest"} {
		if s, ok := v[k].(string); !ok || s == "" {
			t.Errorf("%s: %v", k, v[k])
		}
	}
	if _, ok := v["policy"].(map[string]any); !ok {
		t.Errorf("policy: %v", v["policy"])
	}
	text, _, _ := runMain(t, t.TempDir(), "version")
	if !strings.HasPrefix(text, "acbox "+releaseVersion()+" (") {
		t.Errorf("text form: %q", text)
	}
}

// doctor's digest line fails, naming both digests and the remedy, when
// the check does.
func TestDigestCheck(t *testing.T) {
	drift := &policy.DigestDriftError{Reported: "aaaa", Computed: "bbbb"}
	c := digestCheck(drift)
	if c.OK || !strings.Contains(c.Detail, "reports aaaa") || !strings.Contains(c.Detail, "computes bbbb") || c.Remedy != policy.DigestPinRemedy {
		t.Errorf("a drifted digest: %+v; want a failed check naming both digests, with the pin's remedy", c)
	}
	if c := digestCheck(policy.CheckPolicyDigest()); !c.OK || !strings.Contains(c.Detail, policy.PolicyDigest()) {
		t.Errorf("this tree: %+v", c)
	}
}
