package nsjail

import (
	"fmt"

	"github.com/acbox/acbox/coordinator/sys"
)

// sysctlDir is a directory of the new /proc's sys ("user", "kernel") that
// pid 1 opens (O_PATH) before /proc/sys is bound read-only over itself:
// the directory stays on the fresh proc's own, writable mount, so pid 1
// can write the sandbox's caps beneath it after pivot_root while every
// path the member has to /proc/sys is read-only. It is closed before the
// member starts. A failure to open is kept and refuses the caps.
type sysctlDir struct {
	name string
	fd   int
	err  error
}

func (d *sysctlDir) open(root int, name string) {
	d.name = name
	d.fd, d.err = openNoFollow(root, "proc/sys/"+name, true, true)
	if d.err != nil {
		d.fd = -1
	}
}

// close closes the descriptor: the member starts with no way to the
// writable mount.
func (d *sysctlDir) close(name string) {
	if d.fd > 0 {
		sys.Close(d.fd)
	}
	d.name, d.fd, d.err = name, -1, fmt.Errorf("the sandbox's /proc/sys/%s was closed", name)
}

// write writes value to the file name beneath the kept descriptor and
// checks that it reads back (writeSysctlAt).
func (d *sysctlDir) write(name, value string) error {
	if d.err != nil || d.fd <= 0 {
		why := "it was never opened"
		if d.err != nil {
			why = d.err.Error()
		}
		return fmt.Errorf("pid 1 holds no descriptor of /proc/sys/%s from before /proc/sys was made read-only: %s", d.name, why)
	}
	return writeSysctlAt(d.fd, "/proc/sys/"+d.name+"/", name, value)
}
