//go:build bench

package bench

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchModule is a small module with no dependencies: a cold build
// compiles the part of std it imports (fmt, encoding/json and what they
// need). net/http would take about a minute cold on a 2-CPU machine.
const benchModule = `package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	json.NewEncoder(os.Stdout).Encode(os.Args)
	fmt.Fprintln(os.Stderr, "built")
}
`

// TestPersistedHome times `go build` of benchModule in a sandbox: cold
// (a fresh persisted home, which is what every run without --home is) and
// warm (the second run with the same home, whose ~/.cache/go-build the
// first filled). No network: GOPROXY=off, GOTOOLCHAIN=local, no
// dependencies.
func TestPersistedHome(t *testing.T) {
	bin := acboxBin(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module benchhome\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "main.go"), []byte(benchModule), 0o644)
	goBin, _ := exec.LookPath("go")
	build := func(home string) time.Duration {
		args := []string{"run", "--read", mod, "--cwd", mod, "--env", "GOPROXY=off", "--env", "GOTOOLCHAIN=local",
			"--env", "CGO_ENABLED=0", "--env", "GOFLAGS=", "--env", "PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin"}
		if home != "" {
			args = append(args, "--home", home)
		}
		args = append(args, "--", "go", "build", "-o", "/tmp/app", ".")
		start := time.Now()
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("acbox %v: %v\n%s", args, err, out)
		}
		return time.Since(start)
	}
	const n = 3
	var tmpfs, cold, warm []time.Duration
	for range n {
		name := benchHomeName(t, bin)
		tmpfs = append(tmpfs, build(""))
		cold = append(cold, build(name))
		warm = append(warm, build(name))
	}
	fmt.Printf("go build of a small module (fmt, encoding/json), %d runs each; %s\n", n, machine())
	fmt.Printf("  %-34s median %8.0f ms\n", "private home (tmpfs, every run)", ms(median(tmpfs)))
	fmt.Printf("  %-34s median %8.0f ms\n", "--home, cold (first run)", ms(median(cold)))
	fmt.Printf("  %-34s median %8.0f ms\n", "--home, warm (GOCACHE kept)", ms(median(warm)))
	fmt.Printf("  ratio cold/warm: %.1f\n", float64(median(cold))/float64(median(warm)))
}

func benchHomeName(t *testing.T, bin string) string {
	b := make([]byte, 4)
	rand.Read(b)
	name := "bench-" + hex.EncodeToString(b)
	t.Cleanup(func() { exec.Command(bin, "home", "rm", name).Run() })
	return name
}
