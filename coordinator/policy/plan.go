package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/acbox/acbox/egress"
)

// Plan is the resolved launch: the single value every later stage reads.
// It is built once by Resolve and never changed; backends must not add
// state of their own that changes what is enforced.
type Plan struct {
	Backend    string            `json:"backend"`
	Command    []string          `json:"command"`
	Cwd        string            `json:"cwd"`
	UID        int               `json:"uid"`
	GID        int               `json:"gid"`
	User       string            `json:"user"`
	Home       string            `json:"home"`
	Hostname   string            `json:"hostname"`
	System     []SystemPath      `json:"system"`
	Grants     []Grant           `json:"grants"`
	Mounts     []Mount           `json:"mounts"`
	Tmpfs      []Tmpfs           `json:"tmpfs"`
	Env        []string          `json:"env"`
	Network    egress.Policy     `json:"network"`
	TTY        bool              `json:"tty"`
	Limits     Limits            `json:"limits"`
	BestEffort bool              `json:"best_effort"`
	Image      string            `json:"image,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	// Wait is how long admission queues for a slot (0: refuse at once).
	// It changes when the sandbox starts, never what it may reach.
	Wait     time.Duration `json:"-"`
	Delegate bool          `json:"delegate"`         // nested launches allowed (broker socket inside)
	Depth    int           `json:"depth"`            // 0 for a launch from the host; +1 per nested launch
	Parent   string        `json:"parent,omitempty"` // the requesting sandbox's id, for nested launches
	// Within: Parent was named by the spec's "within" (acbox run
	// --within), not by a broker: an outside coordinator's child.
	Within bool      `json:"within,omitempty"`
	View   string    `json:"view"`            // ViewGrants or ViewHost
	Masks  []Mask    `json:"masks"`           // hidden paths, parents first; see view_masks.go
	Views  []ViewDir `json:"views,omitempty"` // directory snapshots that hold the masks; see view_hold.go
	// Protected are the carve-outs in write grants, parents first: read-only
	// binds of a path onto itself, and the pins that keep their parents in
	// place; see protect.go.
	Protected []Carveout `json:"protected"`
	// EnclosingRepos are the repositories whose work tree (or git
	// directory) holds a write grant that has no repository of its own,
	// one per such grant, with OwnGitDir false; see protect_enclosing.go.
	EnclosingRepos []ProtectedRepo `json:"enclosing_repos,omitempty"`
	// BareRepos are the bare repositories found in write grants, each
	// with the grant holding it and OwnGitDir false; see protect_bare.go.
	BareRepos []ProtectedRepo `json:"bare_repos,omitempty"`
	// ProtectMissing are --protect paths absent from a write grant: nothing
	// was mounted there, and the member may create them.
	ProtectMissing []string `json:"protect_missing,omitempty"`
	// PersistedHome is the --home directory mounted at Home (also listed in
	// Mounts) instead of the private tmpfs; nil: the tmpfs. See home.go.
	PersistedHome *PersistedHome `json:"persisted_home,omitempty"`
	// AccessEnv are more names for ACBOX_ACCESS (the spec's access_env),
	// checked by Resolve; see access.go.
	AccessEnv []string `json:"access_env,omitempty"`
	// listings: what the repository search read, for the exit scan's
	// first walk (listings.go); never serialized.
	listings *Listings
	// requester is the plan of the sandbox that asked for this one through
	// its broker (Host.Requester), nil otherwise (requester.go); never
	// serialized.
	requester *Plan
}

// SystemPath is a host system directory shown read-only, or a merged-/usr
// symlink recreated as the host has it (Link set).
type SystemPath struct {
	Path string `json:"path"`
	Link string `json:"link,omitempty"`
}

// Mount is a trusted runtime mount. Kind is "dir", "file" or "socket".
type Mount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	Readonly bool   `json:"readonly"`
	Kind     string `json:"kind"`
	Internal bool   `json:"-"` // added by acbox itself (see MountSpec.Internal)
}

// Tmpfs is a private tmpfs discarded at exit.
type Tmpfs struct {
	Target string `json:"target"`
	Size   int64  `json:"size"`
}

// Limits in force for the sandbox.
type Limits struct {
	Memory int64 `json:"memory"`
	Pids   int   `json:"pids"`
}

// Defaults for private mounts and limits.
const (
	TmpSize       = 512 << 20
	HomeSize      = 256 << 20
	ExtraTmpfs    = 64 << 20
	DefaultMemory = 2 << 30
	DefaultPids   = 1024
	ProxyAddr     = "127.0.0.1:3128"
)

// systemCandidates are shown read-only when present on the host.
var systemCandidates = []string{"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// SystemPaths lists the host's system directories and merged-/usr links.
func SystemPaths() []SystemPath {
	var out []SystemPath
	for _, p := range systemCandidates {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if l, err := os.Readlink(p); err == nil {
				out = append(out, SystemPath{Path: p, Link: l})
			}
		case fi.IsDir():
			out = append(out, SystemPath{Path: p})
		}
	}
	return out
}

// JSON renders the plan for `acbox plan`.
func (p *Plan) JSON() []byte {
	b, _ := json.MarshalIndent(p, "", "  ")
	return append(b, '\n')
}

// WriteGrants returns the write grants' paths.
func (p *Plan) WriteGrants() []string {
	var out []string
	for _, g := range p.Grants {
		if g.Write {
			out = append(out, g.Path)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cleanAbs(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}
