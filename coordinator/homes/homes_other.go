//go:build !linux

package homes

import (
	"fmt"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Elsewhere than Linux there is no walk that follows no link, and no
// native sandbox to mount a home in.

const (
	Quota      int64 = 8 << 30
	MaxEntries       = 500_000
)

type Usage struct {
	Bytes   int64 `json:"bytes"`
	Entries int   `json:"entries"`
}

type Info struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Usage
	OverQuota bool      `json:"over_quota"`
	LastUsed  time.Time `json:"last_used"`
	Problem   string    `json:"problem,omitempty"`
}

var errOS = fmt.Errorf("%w: persisted homes need Linux", policy.ErrCannotSandbox)

func Acquire(*policy.PersistedHome, int) (func(), error) { return nil, errOS }
func List(string, int) ([]Info, error)                   { return nil, errOS }
func Remove(string, string, int) error                   { return errOS }
