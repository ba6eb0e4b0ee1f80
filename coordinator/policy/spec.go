package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Spec is a launch request as the agent-team extension sends it (the JSON
// launch spec) or as the command-line flags build it. Zero values mean the
// documented defaults: backend "native", cwd the launch directory, network
// "none", tty off, limits 2 GiB and 1024 processes.
type Spec struct {
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
	BestEffort bool              `json:"best_effort,omitempty"`
	Delegate   bool              `json:"delegate,omitempty"`  // may launch narrower sandboxes through ACBOX_SOCKET
	View       string            `json:"view,omitempty"`      // "grants" (default) or "host"; see view.go
	Exclude    []string          `json:"exclude,omitempty"`   // more paths to mask; see view_masks.go
	Protect    []string          `json:"protect,omitempty"`   // more read-only carve-outs in each write grant; see protect.go
	Unprotect  []string          `json:"unprotect,omitempty"` // built-in carve-outs to drop: .git/hooks, .git/config, .git, hookspath

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
		return Spec{}, fmt.Errorf("%w: spec: %w", ErrInvalid, err)
	}
	if err := checkReadsAsDefault(data); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// checkReadsAsDefault refuses values that decode like an absent field (the
// default) though they read as a request: "cwd": "" (the launch directory,
// or the private home) and "limits": {"pids": 0} (1024, not none).
func checkReadsAsDefault(data []byte) error {
	var c struct {
		Cwd    *string `json:"cwd"`
		Limits struct {
			Pids *int `json:"pids"`
		} `json:"limits"`
	}
	if json.Unmarshal(data, &c) != nil {
		return nil // DecodeStrict has read it already; this cannot fail
	}
	if c.Cwd != nil && *c.Cwd == "" {
		return AtField("cwd", invalid(`spec: cwd is "": leave it out for the default (the launch directory when it is granted, else the private home), or name a directory`))
	}
	if c.Limits.Pids != nil && *c.Limits.Pids == 0 {
		return AtField("limits.pids", invalid("spec: limits.pids is 0: leave it out for the default (%d), or give a positive count", DefaultPids))
	}
	return nil
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
