package policy

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Host is what resolving needs to know about the invoking user and machine.
// HostFromEnv fills it from the process; tests build it by hand.
type Host struct {
	UID, GID  int
	User      string
	Home      string // the user's home directory, canonical
	Cwd       string // the launch directory, for relative paths
	StateDir  string // acbox's own state: $XDG_RUNTIME_DIR/acbox, ~/.local/state/acbox or /tmp/acbox-UID (host_state.go)
	ConfigDir string // ~/.config/acbox (or $XDG_CONFIG_HOME/acbox)
	// Protect are the private paths from the config ("private") and
	// ACBOX_PRIVATE: no grant may be, contain or lie inside one, and every
	// sandbox masks them. (The Go name predates the rename to "private".)
	Protect []string
	// Places are state and config directories other launches of this user
	// recorded (host_places.go); every launch masks and refuses them.
	Places []string
	// MaxSandboxes is the config's admission override (0: computed).
	MaxSandboxes int
	Memory       int64                       // the host's RAM in bytes; 0: read it with HostMemory when needed
	Getenv       func(string) (string, bool) // nil: os.LookupEnv
	// Requester is the plan of the sandbox asking for a nested launch
	// through its broker; nil for a launch from the host. What Resolve
	// reads on its behalf is judged against what it can see
	// (requester.go).
	Requester *Plan
	// specPrivate are the spec's own private paths (withPrivate), which
	// for a nested launch the requester named.
	specPrivate []string
}

// HostFromEnv describes the calling process's user and machine. It reads
// the user's config for protected paths; a broken config is an error.
func HostFromEnv() (Host, error) {
	h := Host{UID: os.Getuid(), GID: os.Getgid(), Getenv: os.LookupEnv}
	h.User, h.Home = lookupUser(h.UID)
	if real, err := filepath.EvalSymlinks(h.Home); err == nil {
		h.Home = real
	}
	if wd, err := os.Getwd(); err == nil {
		h.Cwd = wd
	}
	h.StateDir = stateDir(h.Home, h.UID)
	h.ConfigDir = configDir(h.Home)
	places, err := loadPlaces(h)
	if err != nil {
		return h, err
	}
	h.Places = existingPlaces(places)
	cfg, err := LoadConfig(h.ConfigDir)
	if err != nil {
		return h, err
	}
	h.Protect = append(h.Protect, cfg.Private...)
	h.MaxSandboxes = cfg.MaxSandboxes
	if _, ok := os.LookupEnv("ACBOX_PROTECT"); ok {
		return h, invalid("ACBOX_PROTECT is now ACBOX_PRIVATE (the launch spec's \"protect\" means write-grant carve-outs): rename the variable")
	}
	if v := os.Getenv("ACBOX_PRIVATE"); v != "" {
		h.Protect = append(h.Protect, filepath.SplitList(v)...)
	}
	for i, p := range h.Protect {
		h.Protect[i] = expandHome(p, h.Home)
		if !filepath.IsAbs(h.Protect[i]) {
			// Skipping it would silently drop a protection the user asked for.
			return h, invalid("private path %q (config.json private or ACBOX_PRIVATE) is not absolute: write it as /path or ~/path", p)
		}
	}
	return h, nil
}

func lookupUser(uid int) (name, home string) {
	name, home = os.Getenv("USER"), os.Getenv("HOME")
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		name, home = u.Username, u.HomeDir
	}
	if name == "" {
		name = strconv.Itoa(uid)
	}
	if home == "" || !filepath.IsAbs(home) {
		home = "/"
	}
	return name, filepath.Clean(home)
}

func configDir(home string) string {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "acbox")
	}
	return fallbackConfigDir(home)
}

// existingPlaces keeps the recorded places whose XDG directory exists now:
// a directory that is gone holds no state (a launch that names it again
// must create it, and records it then).
func existingPlaces(ps []string) []string {
	var out []string
	for _, p := range ps {
		if _, err := os.Lstat(filepath.Dir(p)); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

func (h Host) getenv(k string) (string, bool) {
	if h.Getenv == nil {
		return os.LookupEnv(k)
	}
	return h.Getenv(k)
}
