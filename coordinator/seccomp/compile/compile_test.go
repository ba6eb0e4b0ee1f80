//go:build linux && cgo

package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/acbox/acbox/coordinator/seccomp"
)

const regenerate = "go generate ./coordinator/seccomp/"

func compileForTest(t *testing.T, rules []seccomp.Rule) []byte {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the filter is generated on x86_64 hosts only")
	}
	bpf, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return bpf
}

// The committed filter is what the policy compiles to today. Package seccomp
// runs its interpreter and kernel tests on the committed bytes, so this test
// is what ties those tests to the policy.
func TestEmbeddedFilterIsCurrent(t *testing.T) {
	bpf := compileForTest(t, seccomp.Policy())
	sum := sha256.Sum256(bpf)
	digest := hex.EncodeToString(sum[:])
	maj, minor, micro := libseccomp.GetLibraryVersion()
	stale := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
		t.Fatalf("the committed filter does not match the policy compiled with libseccomp %d.%d.%d "+
			"(%d instructions, sha256 %s); regenerate it from the module root with\n\t%s\n"+
			"and review the diff (another libseccomp version may lay out the same policy differently)",
			maj, minor, micro, len(bpf)/8, digest, regenerate)
	}
	dir := ".." // go test runs in the package directory, compile/
	file, err := os.ReadFile(filepath.Join(dir, "filter_amd64.bpf"))
	if err != nil {
		stale("%v", err)
	}
	if !bytes.Equal(file, bpf) {
		stale("filter_amd64.bpf differs from a fresh compile (%d bytes, want %d)", len(file), len(bpf))
	}
	line, err := os.ReadFile(filepath.Join(dir, "filter_amd64.bpf.sha256"))
	if err != nil {
		stale("%v", err)
	}
	if want := digest + "  filter_amd64.bpf\n"; string(line) != want {
		stale("filter_amd64.bpf.sha256 is %q, want %q", line, want)
	}
	// What Build hands out, as opposed to what is on disk: the two differ if
	// the package was built before the files changed.
	p, err := seccomp.Build(seccomp.Options{BlockMPTCP: true})
	if err != nil {
		stale("Build: %v", err)
	}
	if p.Digest != digest || p.Insns != len(bpf)/8 {
		stale("Build returns %s (%d instructions)", p.Digest, p.Insns)
	}
}

// The same rules compile to the same bytes, so the digest in the enforcement
// report names the policy, and any change to the rules changes it.
func TestCompileIsDeterministic(t *testing.T) {
	rules := seccomp.Policy()
	a, b := compileForTest(t, rules), compileForTest(t, rules)
	if !bytes.Equal(a, b) {
		t.Fatalf("two compiles differ: %d and %d bytes", len(a), len(b))
	}
	// The first rule (unshare) is its syscall's only one: dropping it
	// leaves no syscall with an architecture uncovered.
	if c := compileForTest(t, rules[1:]); bytes.Equal(a, c) {
		t.Errorf("dropping rule %s does not change the filter", rules[0])
	}
}

// A rule lists only architectures where its syscall exists, and every
// architecture where a refused syscall exists has a rule for it, or the
// documentation would promise a refusal the filter lacks: libseccomp skips
// an architecture without the syscall silently.
func TestRuleArchesMustMatchTheSyscallTable(t *testing.T) {
	both := []string{seccomp.ArchAMD64, seccomp.ArchX86}
	for _, rs := range [][]seccomp.Rule{
		{{Syscall: "umount", Arch: both, Errno: seccomp.EPERM, Why: "x86 only"}},
		{{Syscall: "mount", Arch: []string{seccomp.ArchAMD64}, Errno: seccomp.EPERM, Why: "exists on both"}},
		{{Syscall: "no_such_call", Arch: []string{seccomp.ArchAMD64}, Errno: seccomp.EPERM, Why: "unknown"}},
		{
			{Syscall: "mmap", Arch: []string{seccomp.ArchX86}, Errno: seccomp.ENOSYS, Why: "x86 alone"},
			{Syscall: "mount", Arch: both, Errno: seccomp.EPERM, Why: "another syscall covers nothing"},
		},
		{
			// One of a syscall's rules leaving x86 out, while another covers it.
			{Syscall: "personality", Arch: []string{seccomp.ArchAMD64}, Errno: seccomp.EPERM, Why: "x86 forgotten",
				Conds: []seccomp.Cond{{Arg: 0, Op: seccomp.OpMaskedEq, Mask: 0x6, Value: 0x2}}},
			{Syscall: "personality", Arch: both, Errno: seccomp.EPERM, Why: "x86 covered by another rule",
				Conds: []seccomp.Cond{{Arg: 0, Op: seccomp.OpMaskedEq, Mask: 0x3, Value: 0x1}}},
		},
	} {
		if runtime.GOARCH != "amd64" {
			t.Skip("the filter is generated on x86_64 hosts only")
		}
		name := rs[0].Syscall
		if _, err := Compile(rs); err == nil {
			t.Errorf("rules %v compiled", rs)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("rules %v: error does not name %s: %v", rs, name, err)
		}
	}
}

// Rules for one syscall may split its architectures between them: x86's
// old mmap is refused outright, x86_64's mmap on a flag. Package seccomp's
// interpreter tests show on the shipped bytes that each rule applies to
// its own architecture only.
func TestRulesMaySplitArches(t *testing.T) {
	grows := []seccomp.Cond{{Arg: 3, Op: seccomp.OpMaskedEq, Mask: 0x100, Value: 0x100}}
	split := compileForTest(t, []seccomp.Rule{
		{Syscall: "mmap", Arch: []string{seccomp.ArchAMD64}, Conds: grows, Errno: seccomp.EPERM, Why: "flag"},
		{Syscall: "mmap", Arch: []string{seccomp.ArchX86}, Errno: seccomp.ENOSYS, Why: "flags in memory"},
	})
	both := compileForTest(t, []seccomp.Rule{
		{Syscall: "mmap", Arch: []string{seccomp.ArchAMD64, seccomp.ArchX86}, Conds: grows, Errno: seccomp.EPERM, Why: "flag"},
	})
	if bytes.Equal(split, both) {
		t.Error("the x86-only rule changed nothing")
	}
}

func BenchmarkCompile(b *testing.B) {
	rules := seccomp.Policy()
	for b.Loop() {
		if _, err := Compile(rules); err != nil {
			b.Fatal(err)
		}
	}
}
