package gate

import (
	"syscall"
	"testing"
)

// TestReadSelfPidNS: the init reports its pid namespace as the host sees
// it (nsfs dev/ino), for the parent to match the daemon's pid against.
func TestReadSelfPidNS(t *testing.T) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/pid", &st); err != nil {
		t.Skip(err)
	}
	if got := ReadSelf().PidNS; got != (NS{Dev: st.Dev, Ino: st.Ino}) || got.Ino == 0 {
		t.Errorf("PidNS %+v; want %d/%d", got, st.Dev, st.Ino)
	}
}
