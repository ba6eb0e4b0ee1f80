package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSameRuleEveryEntry runs each bad value through the three ways a
// launch key arrives (a flag, a key of a --spec file, a key of a saved
// profile) and requires each to be refused, naming what is wrong: one rule
// per key, whichever way it comes.
func TestSameRuleEveryEntry(t *testing.T) {
	cfg := t.TempDir()
	prof := filepath.Join(cfg, "acbox", "profiles")
	if err := os.MkdirAll(prof, 0o700); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	cases := []struct {
		name string
		flag []string // nil: no flag for this key yet
		json string   // the spec's keys besides "command"
		want string   // in every refusal
	}{
		{"env name with a space", []string{"--env", "A B=x"}, `"env":{"A B":"x"}`, `environment name "A B" is not valid`},
		{"env name with a newline", []string{"--env", "A\nB=x"}, `"env":{"A\nB":"x"}`, `is not valid`},
		{"pass-env name", []string{"--pass-env", "A B"}, `"pass_env":["A B"]`, `environment name "A B" is not valid`},
		{"allow loopback", []string{"--allow", "127.0.0.1"}, `"access":{"network":{"allow":["127.0.0.1"]}}`, "never reachable through the proxy"},
		{"allow private", []string{"--allow", "10.1.2.3:443"}, `"access":{"network":{"allow":["10.1.2.3:443"]}}`, "private"},
		{"allow link-local", []string{"--allow", "169.254.169.254"}, `"access":{"network":{"allow":["169.254.169.254"]}}`, "link-local"},
		{"allow v6 loopback", []string{"--allow", "[::1]:80"}, `"access":{"network":{"allow":["[::1]:80"]}}`, "loopback"},
		{"allow localhost", []string{"--allow", "localhost:8080"}, `"access":{"network":{"allow":["localhost:8080"]}}`, "localhost is never reachable"},
		{"allow empty", []string{"--allow", ""}, `"access":{"network":{"allow":[""]}}`, "empty"},
		{"mount under /.acbox", []string{"--mount", src + ":/.acbox/x"}, `"mounts":[{"source":"` + src + `","target":"/.acbox/x"}]`, "reserved for acbox's own mounts"},
		{"tmpfs under /.acbox", []string{"--tmpfs", "/.acbox/t"}, `"tmpfs":[{"target":"/.acbox/t"}]`, "reserved for acbox's own mounts"},
		{"tmpfs with an empty size", []string{"--tmpfs", "/x:"}, `"tmpfs":[{"target":"/x","size":""}]`, "tmpfs"},
		{"memory empty", []string{"--memory", ""}, `"limits":{"memory":""}`, "memory"},
		{"memory too small", []string{"--memory", "2"}, `"limits":{"memory":"2"}`, "at least 128MiB"},
		{"pids 0", []string{"--pids", "0"}, `"limits":{"pids":0}`, "pids"},
		{"bind port 0", []string{"--net", "host", "--bind-port", "0"}, `"access":{"network":{"mode":"host","bind_ports":[0]}}`, "1 to 65535"},
		{"cwd empty", []string{"--cwd", ""}, `"cwd":""`, "cwd"},
		{"image empty", []string{"--image", ""}, `"image":""`, "image"},
		{"view empty", []string{"--view", ""}, `"view":""`, "view"},
		{"label with an escape", []string{"--label", "team=a\x1b[2Jb"}, `"labels":{"team":"a\u001b[2Jb"}`, "control character"},
		{"label key with a newline", []string{"--label", "a\nb=x"}, `"labels":{"a\nb":"x"}`, "label key"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := `{"command":["true"],` + c.json + `}`
			spec := filepath.Join(cfg, "spec.json")
			os.WriteFile(spec, []byte(body), 0o600)
			name := "p" + string(rune('a'+i))
			os.WriteFile(filepath.Join(prof, name+".json"), []byte(body), 0o600)
			entries := map[string][]string{
				"spec":    {"plan", "--no-tty", "--spec", spec},
				"profile": {"plan", "--no-tty", "--profile", name},
			}
			if c.flag != nil {
				entries["flag"] = append(append([]string{"plan", "--no-tty"}, c.flag...), "--", "true")
			}
			for entry, args := range entries {
				out, errs, code := runMain(t, cfg, args...)
				if code == 0 || out != "" || !strings.Contains(errs, c.want) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want a refusal naming %q", entry, code, out, errs, c.want)
				}
				if strings.Contains(errs, "Go struct") || strings.Contains(errs, "unmarshal") {
					t.Errorf("%s: message speaks Go: %s", entry, errs)
				}
			}
		})
	}
}
