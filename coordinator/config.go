package coordinator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Config is the user's ~/.config/acbox/config.json. Unknown keys are
// refused so that a typo never silently drops a protection.
type Config struct {
	// Protect lists paths no grant may equal, contain or sit inside.
	Protect []string `json:"protect,omitempty"`
	// MaxSandboxes overrides the host-wide admission cap (0: computed).
	MaxSandboxes int `json:"max_sandboxes,omitempty"`
}

// LoadConfig reads config.json from dir. A missing file is an empty config;
// a group- or world-writable file, or one that is not a regular file, is
// refused because another user could widen what acbox allows.
func LoadConfig(dir string) (Config, error) {
	path := filepath.Join(dir, "config.json")
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %v", ErrInvalid, path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return Config{}, refuse(path, "config is not a regular file or is group/world-writable", "run chmod go-w "+path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %v", ErrInvalid, path, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %v", ErrInvalid, path, err)
	}
	return c, nil
}
