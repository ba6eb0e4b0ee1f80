package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Spec is a launch request as the agent-team extension sends it (the JSON
// launch spec) or as the command-line flags build it. Zero values mean the
// documented defaults: backend "native", cwd the launch directory, network
// "none", tty off, limits 2 GiB and 1024 processes.
type Spec struct {
	// Version is the spec's schema version: 1, the only one (0 when
	// absent, which means 1). See SpecVersion.
	Version    int               `json:"version,omitempty"`
	Backend    string            `json:"backend,omitempty"`
	Command    []string          `json:"command"`
	Cwd        string            `json:"cwd,omitempty"`
	Access     Access            `json:"access"`
	Mounts     []MountSpec       `json:"mounts,omitempty"`
	Tmpfs      []TmpfsSpec       `json:"tmpfs,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	PassEnv    []string          `json:"pass_env,omitempty"`
	TTY        bool              `json:"tty,omitempty"`
	Limits     LimitsSpec        `json:"limits,omitempty"`
	Image      string            `json:"image,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Wait       string            `json:"wait,omitempty"` // queue this long for an admission slot ("10m"); see admission.go
	BestEffort bool              `json:"best_effort,omitempty"`
	Delegate   bool              `json:"delegate,omitempty"`  // may launch narrower sandboxes through ACBOX_SOCKET
	View       string            `json:"view,omitempty"`      // "grants" (default) or "host"; see view.go
	Exclude    []string          `json:"exclude,omitempty"`   // more paths to mask; see view_masks.go
	Protect    []string          `json:"protect,omitempty"`   // more read-only carve-outs in each write grant; see protect.go
	Unprotect  []string          `json:"unprotect,omitempty"` // built-in carve-outs to drop: .git/hooks, .git/config, .git, hookspath
	// AccessEnv are more names the member finds ACBOX_ACCESS under (e.g.
	// AC_TEAMS_ACCESS); see checkAccessEnv.
	AccessEnv []string `json:"access_env,omitempty"`
	// Private are paths no grant may be, contain or lie inside, as the
	// config's private paths (Host.Private); runtime mounts from inside
	// them stay allowed. See private.go.
	Private []string `json:"private,omitempty"`
	// Within is a live sandbox of this user that the launch must be
	// narrower than (policy.Narrower); the child is stopped with it.
	Within string `json:"within,omitempty"`
	// Home names a persisted home (--home) mounted at the home instead of
	// the private tmpfs; see home.go.
	Home string `json:"home,omitempty"`

	// Parent and Depth place a nested launch (set by the broker before
	// resolving, never read from JSON): the requesting sandbox's id, and
	// the requester's depth + 1. Resolve copies them into the plan.
	Parent string `json:"-"`
	Depth  int    `json:"-"`
}

// Access is what the member may reach. Write implies read.
type Access struct {
	Read    []string    `json:"read,omitempty"`
	Write   []string    `json:"write,omitempty"`
	Network NetworkSpec `json:"network,omitempty"`
}

// NetworkSpec is the network policy as requested. Mode is "none" (the
// default), "proxy" or "host". In proxy mode an omitted Allow (nil) means
// any public destination and an empty list means none.
type NetworkSpec struct {
	Mode         string    `json:"mode,omitempty"`
	Allow        *[]string `json:"allow,omitempty"`
	ConnectPorts []uint16  `json:"connect_ports,omitempty"`
	BindPorts    []uint16  `json:"bind_ports,omitempty"`
}

// MountSpec is a trusted runtime mount: a file, directory or Unix socket
// bound at Target (the same path when Target is empty), read-only unless
// Readonly is false (as --mount SRC:DST is read-only unless :rw).
type MountSpec struct {
	Source   string `json:"source"`
	Target   string `json:"target,omitempty"`
	Readonly *bool  `json:"readonly,omitempty"`
	// Internal marks the mounts acbox itself adds (delegation's binary and
	// broker socket, the probe runner); a spec cannot set it. Only internal
	// mounts may target the delegation paths, and only they are exempt from
	// a nested launch's narrowing.
	Internal bool `json:"-"`
}

// ReadOnly reports the mount's mode: read-only unless Readonly is false.
func (m MountSpec) ReadOnly() bool { return m.Readonly == nil || *m.Readonly }

// RW is a MountSpec.Readonly value: read-write (rw false) or read-only.
func RW(rw bool) *bool { ro := !rw; return &ro }

// TmpfsSpec is an extra private tmpfs; Size like "64MiB" (default 64MiB).
type TmpfsSpec struct {
	Target string `json:"target"`
	Size   string `json:"size,omitempty"`
}

// LimitsSpec caps the sandbox. Memory like "2GiB"; Pids a count.
type LimitsSpec struct {
	Memory string `json:"memory,omitempty"`
	Pids   int    `json:"pids,omitempty"`
}

// SpecVersion is the launch spec's schema version (contract 1).
const SpecVersion = 1

// checkVersion refuses a schema version acbox does not speak: a client
// that asks for another one expects other semantics, and reading its spec
// as version 1 would run something it did not ask for.
func checkVersion(v int) error {
	if v == 0 || v == SpecVersion {
		return nil
	}
	return versionError(v)
}

func versionError(v int) error {
	return AtField("version", invalid("spec: version %d: this acbox speaks version %d of the launch spec; send \"version\": %d or upgrade acbox (acbox version --json reports the contract)", v, SpecVersion, SpecVersion))
}

// MaxSpecBytes bounds a spec read from a file or stdin.
const MaxSpecBytes = 1 << 20

// ParseSpec reads one JSON launch spec strictly (see DecodeStrict: unknown
// or repeated fields, wrong types, null, trailing data), refusing oversize
// input and an empty cwd; errors name the JSON path.
func ParseSpec(r io.Reader) (Spec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSpecBytes+1))
	if err != nil {
		return Spec{}, invalid("reading spec: %v", err)
	}
	if len(data) > MaxSpecBytes {
		return Spec{}, invalid("spec is larger than %d bytes", MaxSpecBytes)
	}
	var s Spec
	if err := DecodeStrict(data, &s); err != nil {
		return Spec{}, invalid("spec: %v", err)
	}
	if err := checkReadsAsDefault(data); err != nil {
		return Spec{}, err
	}
	anchorGrants(&s)
	return s, nil
}

// anchorGrants makes a spec's relative grants relative to its cwd when it
// names one, as the agent-team extension resolves them against the
// member's cwd ({"cwd": "/repo/parser", "access": {"write": ["."]}} grants
// /repo/parser). A relative cwd stays relative, and so the grants joined
// to it: Resolve takes both against the launch directory. Grants the
// command line adds come later and keep the launch directory.
func anchorGrants(s *Spec) {
	if s.Cwd == "" {
		return
	}
	for _, list := range [][]string{s.Access.Read, s.Access.Write} {
		for i, p := range list {
			// ~ and ${VAR} are a profile's (profile_expand.go): absolute once expanded.
			if p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$") {
				list[i] = filepath.Join(s.Cwd, p)
			}
		}
	}
}

// String renders the spec as indented JSON (for messages and tests).
func (s Spec) String() string {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Sprintf("%#v", s)
	}
	return string(b)
}

// ReadSpecLine reads a spec that is the first line of r, one byte at a
// time, so that nothing after the newline is consumed: with `--spec -` the
// rest of standard input belongs to the member.
func ReadSpecLine(r io.Reader) (Spec, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) <= MaxSpecBytes {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return ParseSpec(bytes.NewReader(line))
			}
			line = append(line, b[0])
		}
		if err == io.EOF {
			return ParseSpec(bytes.NewReader(line))
		}
		if err != nil {
			return Spec{}, invalid("reading spec from stdin: %v", err)
		}
	}
	return Spec{}, invalid("spec is larger than %d bytes (with --spec -, the spec is the first line of stdin)", MaxSpecBytes)
}

// UnmarshalJSON decodes a network block strictly (unknown fields refused,
// as for the whole spec) and refuses "allow": null: absent means any public
// destination and [] means none, so null could be read either way.
func (n *NetworkSpec) UnmarshalJSON(b []byte) error {
	type plain NetworkSpec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	if err := checkAllowKeys(b); err != nil {
		return err
	}
	*n = NetworkSpec(p)
	return nil
}

// checkAllowKeys refuses a null allow and more than one allow key. Go
// matches keys without regard to case and the last one wins, so
// {"allow": [...], "ALLOW": null} would read as an allowlist to a person
// and as "any destination" to the decoder.
func checkAllowKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: the decoder above has said so
	}
	seen := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if k, _ := t.(string); strings.EqualFold(k, "allow") {
			if seen++; seen > 1 {
				return errors.New("access.network.allow is given more than once (keys match without regard to case): give one allow list")
			}
			if string(bytes.TrimSpace(v)) == "null" {
				return errors.New(`access.network.allow is null: omit it for any public destination, or give [] for none`)
			}
		}
	}
	return nil
}
