package backend

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a random sandbox id: 12 hex digits, which the registry,
// the run directory, the native backend's cgroups and the docker backend's
// container labels all name the sandbox by. The launcher makes one per
// launch and passes it in LaunchIO.ID; a backend given none makes its own.
func NewID() string {
	b := make([]byte, 6)
	rand.Read(b) // never fails (crypto/rand, Go 1.24)
	return hex.EncodeToString(b)
}
