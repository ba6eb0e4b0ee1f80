package nsjail

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/coordinator/policy"
)

func TestFormatIDMap(t *testing.T) {
	for _, c := range []struct {
		maps []syscall.SysProcIDMap
		want string
	}{
		{nil, ""},
		{[]syscall.SysProcIDMap{{ContainerID: 1000, HostID: 1000, Size: 1}}, "1000 1000 1\n"},
		{gidMappings(0), "0 0 1\n65534 65534 1\n"},
		{gidMappings(1001), "1001 1001 1\n"},
	} {
		if got := formatIDMap(c.maps); got != c.want {
			t.Errorf("formatIDMap(%v) = %q, want %q", c.maps, got, c.want)
		}
	}
}

// A map the kernel refuses (here: this test process's own, in the initial
// user namespace, whose maps are fixed) is a launch failure that names
// the maps and a remedy, and is ErrCannotSandbox.
func TestWriteIDMapsRefused(t *testing.T) {
	err := writeIDMaps(os.Getpid(), os.Getuid(), os.Getgid())
	if err == nil {
		t.Fatal("writing the initial namespace's maps succeeded")
	}
	if !errors.Is(err, policy.ErrCannotSandbox) || !strings.Contains(err.Error(), "id maps") ||
		!strings.Contains(err.Error(), "acbox doctor") {
		t.Fatalf("error %q: want ErrCannotSandbox naming the id maps and a remedy", err)
	}
}
