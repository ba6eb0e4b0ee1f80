package policy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // error substring; "" for success
		max   int
	}{
		{"missing", func(*testing.T, string) {}, "", 0},
		{"good", func(t *testing.T, d string) { write(t, d, `{"max_sandboxes": 3}`, 0o600) }, "", 3},
		{"unknown key", func(t *testing.T, d string) { write(t, d, `{"protec": ["/x"]}`, 0o600) }, "unknown field", 0},
		{"group-writable", func(t *testing.T, d string) { write(t, d, `{}`, 0o620) }, "group/world-writable", 0},
		{"symlink", func(t *testing.T, d string) {
			write(t, t.TempDir(), `{}`, 0o600)
			other := t.TempDir()
			write(t, other, `{}`, 0o600)
			os.Symlink(filepath.Join(other, "config.json"), filepath.Join(d, "config.json"))
		}, "without following a link", 0},
		{"other owner", func(t *testing.T, d string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give the file away")
			}
			write(t, d, `{}`, 0o600)
			os.Chown(filepath.Join(d, "config.json"), 65534, 65534)
		}, "owned by you", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			cfg, err := LoadConfig(dir)
			checkErr(t, err, c.want)
			if c.want == "" && cfg.MaxSandboxes != c.max {
				t.Errorf("max_sandboxes %d, want %d", cfg.MaxSandboxes, c.max)
			}
		})
	}
}

func write(t *testing.T, dir, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
}
