package nsjail

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

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

// Root's helper gets every capability the kernel knows: 0 to the number in
// /proc/sys/kernel/cap_last_cap, which lastCap's bisection must find; a
// user's helper gets helperCaps, and CAP_SYS_PTRACE too in host mode.
func TestAmbientCapsAreTheKernelsCaps(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Skipf("no cap_last_cap here: %v", err)
	}
	want, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := lastCap(); got != want {
		t.Fatalf("lastCap() = %d, cap_last_cap says %d", got, want)
	}
	all := ambientCaps(0, false)
	if len(all) != want+1 || all[0] != 0 || all[want] != uintptr(want) {
		t.Errorf("ambientCaps(0) = %v, want 0..%d", all, want)
	}
	if got := ambientCaps(1000, false); !slices.Equal(got, helperCaps) {
		t.Errorf("ambientCaps(1000, false) = %v, want %v", got, helperCaps)
	}
	host := append(slices.Clone(helperCaps), unix.CAP_SYS_PTRACE)
	if got := ambientCaps(1000, true); !slices.Equal(got, host) {
		t.Errorf("ambientCaps(1000, true) = %v, want %v", got, host)
	}
	if got := ambientCaps(0, true); !slices.Equal(got, all) {
		t.Errorf("ambientCaps(0, true) = %v, want every capability", got)
	}
}
