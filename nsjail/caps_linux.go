package nsjail

import (
	"bufio"
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/sys"
)

// Secure bits that keep uid 0 from regaining capabilities on execve and
// lock that choice; they matter when acbox runs as root.
const secureBits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7

// dropBoundingAndAmbient empties the calling thread's bounding and ambient
// sets and locks the secure bits. All three are per-thread state: the caller
// holds LockOSThread and forks the member from this thread.
func dropBoundingAndAmbient() error {
	if err := sys.Prctl("PR_SET_SECUREBITS", unix.PR_SET_SECUREBITS, secureBits, 0, 0, 0); err != nil {
		return err
	}
	for c := 0; c < 64; c++ {
		err := sys.Prctl("PR_CAPBSET_DROP", unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past CAP_LAST_CAP
		}
		if err != nil {
			return err
		}
	}
	return sys.Prctl("PR_CAP_AMBIENT_CLEAR_ALL", unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
}

func setNoNewPrivs() error {
	return sys.Prctl("PR_SET_NO_NEW_PRIVS", unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// clearThreadCaps empties the effective, permitted and inheritable sets of
// the calling thread.
func clearThreadCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return sys.Capset(&hdr, &data[0])
}

// threadStatus reads the calling thread's capability sets, NoNewPrivs and
// seccomp mode from /proc/thread-self/status.
func threadStatus() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/thread-self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		switch k {
		case "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters":
			if ok {
				out[k] = strings.TrimSpace(v)
			}
		}
	}
	return out
}
