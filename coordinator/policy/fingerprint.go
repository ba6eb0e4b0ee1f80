package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/acbox/acbox/coordinator/seccomp"
	"github.com/acbox/acbox/egress"
)

// PolicyFingerprint is the built-in policy of this acbox build, the part no
// flag, spec or config changes: the seccomp filter, the refused paths, the
// credential masks, the /proc entries every sandbox hides or makes
// read-only, the built-in write-grant carve-outs with how far repositories
// are searched for, and the address ranges the egress proxy refuses. Paths
// are written with placeholders (~, $STATE, $CONFIG, $UID) so that the
// fingerprint is the same for every user of one build.
type PolicyFingerprint struct {
	Schema         int               `json:"schema"`
	Seccomp        map[string]string `json:"seccomp"`       // GOARCH -> sha256 of the embedded BPF; GOARCH+" listen" -> of host mode's listen filter
	SeccompRules   []string          `json:"seccomp_rules"` // seccomp.Policy(), as compiled
	RefusedPaths   []string          `json:"refused_paths"`
	ReadOnlySystem []string          `json:"read_only_system"` // no write grant may equal, contain or sit inside them
	Masks          []string          `json:"masks"`
	Proc           []string          `json:"proc"` // /proc entries hidden or read-only (procmask.go)
	Carveouts      []string          `json:"carveouts"`
	EgressRefused  []string          `json:"egress_refused"`
}

// fingerprintSchema changes when the shape of PolicyFingerprint does.
const fingerprintSchema = 3

// Fingerprint returns this build's built-in policy.
func Fingerprint() PolicyFingerprint {
	f := PolicyFingerprint{
		Schema:         fingerprintSchema,
		Seccomp:        map[string]string{runtime.GOARCH: seccompDigest()},
		RefusedPaths:   append(RefusedPaths("~", "$STATE"), "$CONFIG (contains or inside)"),
		ReadOnlySystem: append([]string{}, systemTrees...),
		Masks:          CredentialMasks(),
		Proc:           procPolicy(),
		Carveouts:      carveoutPolicy(),
		EgressRefused:  egress.RefusedRanges(),
	}
	if p, err := seccomp.ListenProgram(); err == nil {
		f.Seccomp[runtime.GOARCH+" listen"] = p.Digest
	}
	for _, r := range seccomp.Policy() {
		f.SeccompRules = append(f.SeccompRules, r.String())
	}
	return f
}

// seccompDigest is the embedded filter's digest, or why there is none: the
// filter exists for x86_64 hosts only.
func seccompDigest() string {
	prog, err := seccomp.Build(seccomp.Options{BlockMPTCP: true})
	if err != nil {
		return "none: " + err.Error()
	}
	return prog.Digest
}

// Digest is the sha256 of the fingerprint's JSON.
func (f PolicyFingerprint) Digest() string {
	b, _ := json.Marshal(f)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// builtPolicyDigest is Fingerprint().Digest() of this tree on amd64,
// written here as the embedded seccomp filter is generated: it depends only
// on the build, and computing it (the seccomp rules as text, reflective
// JSON) cost every launch about 0.4 ms of CPU and 80 page faults. A change
// to the built-in policy makes TestPolicyDigestIsPinned fail until this
// line is edited in the same change: its diff is the reviewed record that
// the policy moved. Operators compare it with `acbox version --json`.
const builtPolicyDigest = "2fa05e85371b0324654442eefd9b757f11f1d0a13852d59233c49885a47d82f1"

// policyDigest is computed once per process where no digest is written
// down (builds for other architectures, which embed no seccomp filter).
var policyDigest = sync.OnceValue(func() string { return Fingerprint().Digest() })

// PolicyDigest returns the digest of this build's built-in policy, for
// `acbox version --json` and the enforcement report. A change to any part
// of [PolicyFingerprint] changes it.
func PolicyDigest() string {
	if runtime.GOARCH == "amd64" {
		return builtPolicyDigest
	}
	return policyDigest()
}

// carveoutPolicy describes the built-in carve-outs and the repository search.
func carveoutPolicy() []string {
	return append(BuiltinProtect(),
		fmt.Sprintf("repositories searched %d levels below each write grant, node_modules skipped, symlinks not followed, at most %d directories", repoSearchDepth, repoSearchLimit),
		"what a git check moves aside noted by inode in a ledger in the state directory; an entry recorded at launch that another check moved aside during the run is moved aside again",
		"every linked worktree a protected repository lists (worktrees/NAME/gitdir) that lies in a write grant, at any depth, protected as a repository: its .git file and core.hooksPath read-only, its work tree checked after the run",
		"a bare repository (HEAD, objects, refs, no .git) at a write grant's root or within the search's depth: hooks and config read-only, objects and refs pinned, checked after the run for a new .git inside",
		fmt.Sprintf("core.hooksPath from the system, global and repository config (includes followed outside write grants, %d deep, at most %d files of %d bytes) kept read-only when it names a directory in a write grant; an include inside a write grant refused", gitIncludeDepth, gitConfigMaxFiles, gitConfigMaxSize),
		"objects and refs of each protected git directory pinned; git discovery checked after the run (HEAD restored; new .git, bare layouts, modules, worktrees, commondir and rebase state moved aside)",
		"a repository whose work tree holds a write grant (found upwards as git finds it, within GIT_CEILING_DIRECTORIES and one filesystem) protected as if at the grant's root: its core.hooksPath kept read-only in the grant, the grant checked after the run for new .git and bare layouts")
}

// procPolicy lists what every sandbox does to /proc's host-wide entries.
func procPolicy() []string {
	var out []string
	for _, n := range ProcMaskFiles() {
		out = append(out, "/proc/"+n+" (hidden file)")
	}
	for _, n := range ProcMaskDirs() {
		out = append(out, "/proc/"+n+" (hidden directory)")
	}
	for _, n := range ProcReadOnlyDirs() {
		out = append(out, "/proc/"+n+" (read-only)")
	}
	return out
}
