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

// The cost of the helper config's encoding, the reflective JSON it had
// until issue 15 against the binary one it has now (docs/benchmarks.md):
// steady state here, the first use in a fresh process (what a launch pays:
// the parent encodes once, pid 1 decodes once) with
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

// BenchmarkConfigWire: the same with the binary encoding pid 1 reads
// (wire_proto.go).
func BenchmarkConfigWire(b *testing.B) {
	cfg := benchConfig(b)
	for b.Loop() {
		data, err := encodeConfig(&cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := decodeConfig(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadyWire: a ready message with a report of a real plan's size.
func BenchmarkReadyWire(b *testing.B) {
	m := helperMsg{Kind: "ready", Report: Expect(benchConfig(b).Plan), Pid: 2}
	for range 40 {
		m.Report.Mounts = append(m.Report.Mounts, policy.MountRecord{Target: "/usr/lib/x", Kind: "system", Source: "/usr/lib/x", Dev: 2049, Ino: 1234, Flags: "ro,nosuid,nodev"})
	}
	for b.Loop() {
		if _, err := decodeMsg(encodeMsg(m)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadyJSON: that message as JSON, as before the binary encoding.
func BenchmarkReadyJSON(b *testing.B) {
	m := helperMsg{Kind: "ready", Report: Expect(benchConfig(b).Plan), Pid: 2}
	for range 40 {
		m.Report.Mounts = append(m.Report.Mounts, policy.MountRecord{Target: "/usr/lib/x", Kind: "system", Source: "/usr/lib/x", Dev: 2049, Ino: 1234, Flags: "ro,nosuid,nodev"})
	}
	for b.Loop() {
		data, _ := json.Marshal(m)
		var got helperMsg
		if err := json.Unmarshal(data, &got); err != nil {
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
		wire, _ := os.ReadFile(f + ".wire")
		t0 := time.Now()
		_, werr := decodeConfig(wire)
		t.Logf("first binary decode (pid 1's side) %v", time.Since(t0))
		t0 = time.Now()
		var c helperConfig
		err := json.Unmarshal(data, &c)
		t.Logf("first JSON decode %v", time.Since(t0))
		if err != nil || werr != nil {
			t.Fatal(err, werr)
		}
		return
	}
	cfg := benchConfig(t)
	t0 := time.Now()
	wire, _ := encodeConfig(&cfg)
	t.Logf("config of %d bytes: first binary encode (the parent's side) %v", len(wire), time.Since(t0))
	t0 = time.Now()
	data, _ := json.Marshal(cfg)
	t.Logf("config of %d bytes: first JSON encode %v", len(data), time.Since(t0))
	f := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(f, data, 0o644)
	os.WriteFile(f+".wire", wire, 0o644)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConfigJSONFirstUse$", "-test.v")
	cmd.Env = append(os.Environ(), "ACBOX_BENCH_JSON_DECODE="+f)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
