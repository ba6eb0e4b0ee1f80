//go:build integration

package integration

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// memberEnv runs `env` as the member itself (no shell adds to it) and
// returns its variables.
func memberEnv(t *testing.T, m mode, flags ...string) map[string]string {
	t.Helper()
	r := runBox(t, m, append(append([]string{"run"}, flags...), "--", "env")...)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	return env
}

// TestEnvironment: the member sees exactly the fixed minimal environment
// plus ACBOX_ACCESS (valid JSON saying what is enforced) and ACBOX_ID; the
// host's variables, such as the canary set for acbox, are absent.
func TestEnvironment(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w, r := fx.dir("w"), fx.dir("r")
		env := memberEnv(t, m, "-w", w, "-r", r, "--cwd", w)
		want := map[string]string{"HOME": m.home, "USER": m.user, "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("%s=%q inside, want %q", k, env[k], v)
			}
		}
		allowed := map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "USER": true, "LANG": true,
			"TERM": true, "ACBOX_ACCESS": true, "ACBOX_ID": true}
		for k := range env {
			if !allowed[k] {
				t.Errorf("unexpected variable inside the sandbox: %s=%s", k, env[k])
			}
		}
		for k := range allowed {
			if _, ok := env[k]; !ok {
				t.Errorf("%s is missing inside the sandbox", k)
			}
		}
		if !regexp.MustCompile(`^[0-9a-f]{8,}$`).MatchString(env["ACBOX_ID"]) {
			t.Errorf("ACBOX_ID=%q, want a hex id", env["ACBOX_ID"])
		}
		checkAccess(t, env["ACBOX_ACCESS"], []string{r}, []string{w})
	})
}

func checkAccess(t *testing.T, raw string, read, write []string) {
	t.Helper()
	var a struct {
		Enforced *bool    `json:"enforced"`
		Backend  string   `json:"backend"`
		Read     []string `json:"read"`
		Write    []string `json:"write"`
		Network  struct {
			Mode string `json:"mode"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatalf("ACBOX_ACCESS is not valid JSON: %v: %q", err, raw)
	}
	if a.Enforced == nil || !*a.Enforced {
		t.Errorf("ACBOX_ACCESS.enforced is not true: %s", raw)
	}
	if a.Backend != "native" {
		t.Errorf("ACBOX_ACCESS.backend = %q, want native", a.Backend)
	}
	if strings.Join(a.Read, ",") != strings.Join(read, ",") || strings.Join(a.Write, ",") != strings.Join(write, ",") {
		t.Errorf("ACBOX_ACCESS read=%v write=%v, want read=%v write=%v", a.Read, a.Write, read, write)
	}
	if a.Network.Mode != "none" {
		t.Errorf("ACBOX_ACCESS.network.mode = %q, want none", a.Network.Mode)
	}
}

// TestEnvFlags: --pass-env passes a host variable, --env sets one, and
// names acbox reserves (ACBOX_*) are refused before anything runs.
func TestEnvFlags(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		secret := strings.TrimPrefix(canaryEnv, "SECRET_CANARY=")
		if env := memberEnv(t, m, "--pass-env", "SECRET_CANARY"); env["SECRET_CANARY"] != secret {
			t.Errorf("--pass-env SECRET_CANARY: got %q, want %q", env["SECRET_CANARY"], secret)
		}
		env := memberEnv(t, m, "--env", "K=V", "--env", "EMPTY=", "--env", "LANG=C")
		if env["K"] != "V" || env["LANG"] != "C" {
			t.Errorf("--env K=V LANG=C: got K=%q LANG=%q", env["K"], env["LANG"])
		}
		if v, ok := env["EMPTY"]; !ok || v != "" {
			t.Errorf("--env EMPTY=: got %q, %v", v, ok)
		}
		if _, ok := env["SECRET_CANARY"]; ok {
			t.Errorf("SECRET_CANARY reached the member without --pass-env")
		}
		if env := memberEnv(t, m, "--pass-env", "IT_UNSET_VAR_FOR_ACBOX"); env["IT_UNSET_VAR_FOR_ACBOX"] != "" {
			t.Errorf("an unset --pass-env variable appeared")
		}
	})
}

// TestProxyEnvironment: with the proxy on, the member gets the proxy
// variables pointing at the bridge (and nothing listens there without
// it); with no network, none of them.
func TestProxyEnvironment(t *testing.T) {
	want := map[string]string{
		"HTTP_PROXY": "http://127.0.0.1:3128", "HTTPS_PROXY": "http://127.0.0.1:3128",
		"http_proxy": "http://127.0.0.1:3128", "https_proxy": "http://127.0.0.1:3128",
		"NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1", "NODE_USE_ENV_PROXY": "1",
	}
	forEachMode(t, func(t *testing.T, m mode) {
		on := memberEnv(t, m, "--allow", "example.com")
		off := memberEnv(t, m)
		for k, v := range want {
			if on[k] != v {
				t.Errorf("proxy on: %s=%q, want %q", k, on[k], v)
			}
			if _, ok := off[k]; ok {
				t.Errorf("no network: %s is set", k)
			}
		}
	})
}
