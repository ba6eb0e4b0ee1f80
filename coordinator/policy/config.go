package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Config is the user's ~/.config/acbox/config.json. Unknown keys are
// refused so that a typo never silently drops a protection.
type Config struct {
	// Private lists paths no grant may equal, contain or sit inside, and
	// that every sandbox masks (Host.Protect). It was "protect" before
	// contract 1, a name the launch spec uses for write-grant carve-outs.
	Private []string `json:"private,omitempty"`
	// OldProtect is the former name of Private, refused with a pointer to
	// the new one rather than read: a silent rename could drop a
	// protection, and a key read under two names could be set twice.
	OldProtect json.RawMessage `json:"protect,omitempty"`
	// MaxSandboxes overrides the host-wide admission cap (0: computed).
	MaxSandboxes int `json:"max_sandboxes,omitempty"`
}

// LoadConfig reads config.json from dir. A missing file is an empty config;
// a symlink, a file that is not regular, not owned by the caller, or group-
// or world-writable is refused because another user could widen what acbox
// allows. The file is opened without following a link and checked through
// the open descriptor, so what is read is what was checked.
func LoadConfig(dir string) (Config, error) {
	path := filepath.Join(dir, "config.json")
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, refuse(path, "config cannot be opened without following a link: "+err.Error(), "make it a regular file you own")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %w", ErrInvalid, path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || fileOwner(fi) != os.Getuid() {
		return Config{}, refuse(path, "config is not a regular file owned by you, or is group/world-writable", "chown it to yourself and run chmod go-w "+path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes))
	if err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %w", ErrInvalid, path, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%w: config %s: %w", ErrInvalid, path, err)
	}
	if c.OldProtect != nil {
		return Config{}, invalid(`config %s: "protect" is now "private" (the launch spec's "protect" means write-grant carve-outs): rename the key`, path)
	}
	return c, nil
}
