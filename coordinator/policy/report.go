package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Report is what a backend enforced, measured inside the sandbox before the
// member's first instruction. Every control appears in Controls with what
// was requested and what was enforced; a requested control that was not
// enforced refuses the launch unless the plan asked for best effort.
type Report struct {
	ID         string             `json:"id"`
	Backend    string             `json:"backend"`
	Namespaces map[string]uint64  `json:"namespaces,omitempty"`
	Mounts     []MountRecord      `json:"mounts"`
	Landlock   json.RawMessage    `json:"landlock,omitempty"`
	Seccomp    *SeccompRecord     `json:"seccomp,omitempty"`
	Caps       map[string]string  `json:"caps,omitempty"`
	NoNewPrivs bool               `json:"no_new_privs"`
	Limits     map[string]string  `json:"limits,omitempty"`
	Controls   []Control          `json:"controls"`
	PhasesMS   map[string]float64 `json:"phases_ms,omitempty"`
	// PolicyDigest is PolicyDigest(): the built-in policy this acbox enforces.
	PolicyDigest string `json:"policy_digest,omitempty"`
}

// MountRecord is one mount in the sandbox, with the identity of its source.
type MountRecord struct {
	Target string `json:"target"`
	Kind   string `json:"kind"` // system, grant, mount, tmpfs, proc, dev
	Source string `json:"source,omitempty"`
	Dev    uint64 `json:"dev,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
	Flags  string `json:"flags,omitempty"`
}

// SeccompRecord identifies the loaded filter.
type SeccompRecord struct {
	Digest string   `json:"digest"`
	Arch   []string `json:"arch"`
	Insns  int      `json:"insns"`
}

// Control is one requested protection and whether it is in force.
type Control struct {
	Name      string `json:"name"`
	Requested bool   `json:"requested"`
	Enforced  bool   `json:"enforced"`
	Why       string `json:"why,omitempty"`
}

// Shortfalls lists the requested controls that are not enforced.
func (r *Report) Shortfalls() []Control {
	var out []Control
	for _, c := range r.Controls {
		if c.Requested && !c.Enforced {
			out = append(out, c)
		}
	}
	return out
}

// Digest is the sha256 of the report's JSON, for the started event.
func (r *Report) Digest() string {
	b, _ := json.Marshal(r)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
