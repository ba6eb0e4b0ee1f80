package nsjail

import (
	"bufio"
	"strings"
	"testing"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestReadConfig: pid 1 reads the config's frame and leaves the release
// byte after it; it refuses a frame of another build (an older parent's
// JSON line included) and a config without a command, naming the remedy.
func TestReadConfig(t *testing.T) {
	frameOf := func(c helperConfig) string {
		b, err := encodeConfig(&c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	good := frameOf(helperConfig{ID: "a", Plan: &policy.Plan{Command: []string{"true"}}, CgroupLeaves: []int{5}, CgroupID: "a"})
	other := []byte(good)
	other[4] = 9
	for _, tc := range []struct {
		name, in, want string
	}{
		{"good", good + string(releaseByte), ""},
		{"json", `{"id":"a","plan":{"command":["true"]}}` + "\n", "same build"},
		{"other version", string(other), "same build"},
		{"no plan", frameOf(helperConfig{ID: "a"}), "no command"},
		{"no command", frameOf(helperConfig{ID: "a", Plan: &policy.Plan{}}), "no command"},
		{"empty", "", "closed the config pipe"},
		{"cut", good[:len(good)-1], "truncated"},
	} {
		r := bufio.NewReader(strings.NewReader(tc.in))
		cfg, err := readConfig(r)
		if tc.want == "" {
			if err != nil || cfg.CgroupLeaves[0] != 5 {
				t.Errorf("%s: %+v, %v", tc.name, cfg, err)
			}
			if b, err := r.ReadByte(); b != releaseByte || err != nil {
				t.Errorf("%s: the release byte after the config: %q, %v", tc.name, b, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad helper config") {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "%!") {
			t.Errorf("%s: a malformed message: %s", tc.name, err)
		}
	}
}

// TestReadyNeedsEveryLeafEntered: a ready message that entered fewer v1
// leaves than the parent passed (a pid 1 of an older build ignores them)
// fails the launch instead of reporting limits that do not hold.
func TestReadyNeedsEveryLeafEntered(t *testing.T) {
	for _, entered := range []int{0, 1, 3} {
		l := &launch{leafFDs: []int{5, 6}, opt: Options{Exe: "/old/acbox"}}
		err := l.handle(helperMsg{Kind: "ready", Entered: entered}, &backend.Outcome{})
		if err == nil || policy.ExitCode(err) != policy.ExitCannotSandbox || !strings.Contains(err.Error(), "not the build of this acbox") {
			t.Errorf("entered %d of 2: %v", entered, err)
		}
	}
}
