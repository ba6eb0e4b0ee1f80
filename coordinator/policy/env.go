package policy

import (
	"strings"
)

// DefaultPath is PATH inside every sandbox.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// proxyEnv points every common client at the bridge inside the sandbox.
// 127.0.0.1, not localhost: the bridge listens on IPv4 only.
var proxyEnv = []string{
	"HTTP_PROXY=http://" + ProxyAddr, "HTTPS_PROXY=http://" + ProxyAddr,
	"http_proxy=http://" + ProxyAddr, "https_proxy=http://" + ProxyAddr,
	"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
	"NODE_USE_ENV_PROXY=1",
}

// forwarded are the host's locale and terminal variables the member gets
// as they are (LANG and TERM default to C.UTF-8 and dumb when unset): they
// say how to format text and colour, which the agent-team extension's
// members expect (its seed forwards LC_ALL and COLORTERM), and name no path
// or secret. LC_* are the glibc categories.
var forwarded = []string{
	"LANG", "TERM", "COLORTERM", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC",
	"LC_TIME", "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_NAME", "LC_PAPER", "LC_TELEPHONE",
}

// buildEnv returns the member's environment: a fixed minimal set, the proxy
// variables when the proxy is on, then --pass-env and --env. ACBOX_ACCESS is
// added by the backend once it knows what it enforced.
func buildEnv(s Spec, p *Plan, h Host) ([]string, error) {
	env := map[string]string{
		"PATH": DefaultPath, "HOME": p.Home, "TMPDIR": "/tmp", "USER": p.User,
		"LANG": "C.UTF-8", "TERM": "dumb",
	}
	for _, k := range forwarded {
		if v, ok := h.getenv(k); ok && v != "" {
			env[k] = v
		}
	}
	if p.Network.Mode == "proxy" {
		for _, kv := range proxyEnv {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	for _, k := range s.PassEnv {
		if err := checkEnvName(k); err != nil {
			return nil, err
		}
		if v, ok := h.getenv(k); ok {
			env[k] = v
		}
	}
	for _, k := range sortedKeys(s.Env) {
		if err := checkEnvName(k); err != nil {
			return nil, err
		}
		env[k] = s.Env[k]
	}
	out := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

// ParseEnvFlag reads K=V.
func ParseEnvFlag(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", invalid("--env %q: want K=V", s)
	}
	return k, v, checkEnvName(k)
}
