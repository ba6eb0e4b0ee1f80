package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Profile is a saved launch: a Spec in $CONFIG/profiles/NAME.json
// (~/.config/acbox/profiles). Its paths may use ~ and ${VAR}; `acbox run
// --profile NAME` starts from it and flags add to it.
//
// A profile widens what a later launch may do, so acbox reads one only
// when no sandboxed member can have written it: the config directory is a
// protected path (no grant may equal, contain or sit inside it), a profile
// inside a write grant of the plan being built is refused all the same
// (Check), and no profile is read inside a sandbox (ACBOX_ACCESS set). The
// file must be a regular file (not a symlink) owned by the user and not
// group- or world-writable, in a directory with the same properties.
type Profile struct {
	Name string
	Path string // real path of the file
	Spec Spec   // expanded
}

// profileName tells whether name is a profile's name, ^[a-zA-Z0-9_-]+$
// (a hand check, not a regexp compiled at every process's start).
func profileName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// ProfileDir is where profiles are read from.
func ProfileDir(h Host) string { return filepath.Join(h.ConfigDir, "profiles") }

// CheckProfileName refuses names other than [a-zA-Z0-9_-]+.
func CheckProfileName(name string) error {
	if !profileName(name) {
		return invalid("profile name %q: use only letters, digits, _ and -", name)
	}
	return nil
}

// LoadProfile reads, checks and expands one profile.
func LoadProfile(name string, h Host) (Profile, error) {
	if err := CheckProfileName(name); err != nil {
		return Profile{}, err
	}
	if _, inside := h.getenv("ACBOX_ACCESS"); inside {
		return Profile{}, refuse("--profile "+name, "profiles are not read inside a sandbox: a member could have written them",
			"pass the launch with flags or --spec")
	}
	dir := ProfileDir(h)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return Profile{}, invalid("profile %q not found: %s does not exist; save a launch spec as %s/%s.json", name, dir, dir, name)
	}
	if err := checkOwned(dir, h, true); err != nil {
		return Profile{}, err
	}
	path := filepath.Join(dir, name+".json")
	s, err := readProfile(path, h)
	if err != nil {
		return Profile{}, err
	}
	if err := expandSpec(&s, h); err != nil {
		return Profile{}, err
	}
	return Profile{Name: name, Path: canonicalOrClean(path), Spec: s}, nil
}

// readProfile opens the file without following a symlink and checks the
// descriptor it reads, so the checked file is the file parsed.
func readProfile(path string, h Host) (Spec, error) {
	f, err := openNoFollow(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Spec{}, invalid("profile %s not found; `acbox profile list` shows the saved ones", path)
	case isSymlinkErr(err):
		return Spec{}, refuse(path, "profile is a symlink", "put the profile itself in "+filepath.Dir(path))
	case err != nil:
		return Spec{}, invalid("profile %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Spec{}, invalid("profile %s: %v", path, err)
	}
	if err := checkOwnedInfo(path, fi, h, false); err != nil {
		return Spec{}, err
	}
	s, err := ParseSpec(f)
	if err != nil {
		return Spec{}, invalid("profile %s: %s", path, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	return s, nil
}

// checkOwned requires path to be the user's own directory or regular file,
// writable by nobody else.
func checkOwned(path string, h Host, dir bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return invalid("%s: %v", path, err)
	}
	return checkOwnedInfo(path, fi, h, dir)
}

func checkOwnedInfo(path string, fi fs.FileInfo, h Host, dir bool) error {
	switch {
	case dir && !fi.IsDir():
		return refuse(path, "is not a directory", "")
	case !dir && !fi.Mode().IsRegular():
		return refuse(path, "is not a regular file", "")
	case fileOwner(fi) != h.UID:
		return refuse(path, "is not owned by you, so someone else could change what it grants", "chown it to yourself or remove it")
	case fi.Mode().Perm()&0o022 != 0:
		return refuse(path, "is group- or world-writable, so someone else could change what it grants", "run chmod go-w "+path)
	}
	return nil
}

// Check refuses a profile that lies inside a write grant of the plan built
// from it: a member of that sandbox could rewrite it for the next launch.
func (pr Profile) Check(p *Plan) error {
	for _, g := range p.WriteGrants() {
		if within(pr.Path, g) {
			return refuse(pr.Path, "the profile lies inside the write grant "+g+", where the member could rewrite it",
				"keep profiles in "+filepath.Dir(pr.Path)+" and grant a narrower directory")
		}
	}
	return nil
}

// ListProfiles returns the names of the saved profiles, sorted.
func ListProfiles(h Host) ([]string, error) {
	entries, err := os.ReadDir(ProfileDir(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, invalid("listing profiles: %v", err)
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && profileName(name) && e.Type().IsRegular() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
