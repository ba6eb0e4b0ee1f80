package nsjail

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// The cost of the helper config's reflective JSON, measured before
// deciding whether a hand-written encoding pays (docs/benchmarks.md,
// issue 15): steady state here, the first use in a fresh process (what a
// launch pays: the parent encodes once, pid 1 decodes once) with
// ACBOX_BENCH_JSON=1 go test -run TestConfigJSONFirstUse -v ./nsjail/.

func benchConfig(tb testing.TB) helperConfig {
	root, _ := filepath.EvalSymlinks(tb.TempDir())
	home := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(home, "proj", ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(home, "proj", ".git", "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "state"), 0o700)
	p, err := policy.Resolve(policy.Spec{Command: []string{"true"}, Access: policy.Access{Write: []string{filepath.Join(home, "proj")}}},
		policy.Host{UID: os.Getuid(), GID: os.Getgid(), User: "u", Home: home, Cwd: filepath.Join(home, "proj"), Memory: 1 << 30, StateDir: filepath.Join(root, "state")})
	if err != nil {
		tb.Fatal(err)
	}
	return helperConfig{ID: "abc", Plan: p, Access: p.Access(true), PolicyDigest: "x", Idents: []ident{{Path: "/a", Dev: 1, Ino: 2}}}
}

// BenchmarkConfigJSON: the config's encode and decode, type walk cached.
func BenchmarkConfigJSON(b *testing.B) {
	cfg := benchConfig(b)
	for b.Loop() {
		data, _ := json.Marshal(cfg)
		var c helperConfig
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConfigJSONFirstUse logs the first encode in this process and the
// first decode in a fresh one.
func TestConfigJSONFirstUse(t *testing.T) {
	if os.Getenv("ACBOX_BENCH_JSON") == "" {
		t.Skip("a measurement: set ACBOX_BENCH_JSON=1")
	}
	if f := os.Getenv("ACBOX_BENCH_JSON_DECODE"); f != "" {
		data, _ := os.ReadFile(f)
		t0 := time.Now()
		var c helperConfig
		err := json.Unmarshal(data, &c)
		t.Logf("first decode (pid 1's side) %v", time.Since(t0))
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	cfg := benchConfig(t)
	t0 := time.Now()
	data, _ := json.Marshal(cfg)
	t.Logf("config of %d bytes: first encode (the parent's side) %v", len(data), time.Since(t0))
	f := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(f, data, 0o644)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConfigJSONFirstUse$", "-test.v")
	cmd.Env = append(os.Environ(), "ACBOX_BENCH_JSON_DECODE="+f)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
