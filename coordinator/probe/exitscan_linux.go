package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// The exit scan's scenarios: a privileged program already in a place the
// member can write, which the member rewrites through a shared mapping
// (the kernel keeps set-id bits and file capabilities there) and
// hard-links, has neither after the run: acbox strips them once the
// sandbox has ended. Judged from outside, through `acbox run` with the
// runner's binary as the member (--map-write).

const exitScanSource = "acbox attack findings F3 (file capabilities) and F12 (read-write mounts); the kernel keeps set-id bits and security.capability on a write through a shared mapping"

// memberContent is what the member's mapping writes (rewriteMapped).
const memberContent = "#!/bin/sh\necho the member's program\n"

// exitScanMount: set-id files in a read-write --mount directory and a
// set-id file mounted alone read-write.
func (r *Runner) exitScanMount() Line {
	const id = "life.exitscan-rw-mount"
	const expect = "a set-id file in a read-write --mount directory (and its new hard link), and one mounted alone read-write, rewritten by the member through a shared mapping, have no set-id bit after the run"
	dir := filepath.Join(r.Fixture.Base, "rwmount-"+randHex(4))
	single := dir + "-single"
	defer os.RemoveAll(dir)
	defer os.Remove(single)
	if err := errors.Join(os.Mkdir(dir, 0o755), privileged(filepath.Join(dir, "suid"), 0o4755, false),
		privileged(single, 0o2755, false)); err != nil {
		return life(id, expect, exitScanSource, errorf("fixture: %v", err))
	}
	const target = "/tmp/acbox-exitscan-rw"
	c := r.cliWith([]string{"--mount", dir + ":" + target + ":rw", "--mount", single + ":" + target + "-single:rw"},
		"--map-write="+target+"/suid", "--map-write="+target+"-single")
	return life(id, expect, exitScanSource, judgeExitScan(c, []string{filepath.Join(dir, "suid"),
		filepath.Join(dir, "suid.link"), single}, false))
}

// exitScanCaps: a file with file capabilities in the write grant.
func (r *Runner) exitScanCaps() Line {
	const id = "life.exitscan-filecaps"
	const expect = "a file with file capabilities in a write grant (and its new hard link), rewritten by the member through a shared mapping, has no capabilities after the run"
	if os.Geteuid() != 0 {
		return life(id, expect, exitScanSource, skipf("giving a file capabilities takes CAP_SETFCAP: run the suite as root"))
	}
	f := filepath.Join(r.Fixture.Write, "caps-"+randHex(4))
	defer os.Remove(f)
	defer os.Remove(f + ".link")
	if err := privileged(f, 0o755, true); err != nil {
		return life(id, expect, exitScanSource, errorf("fixture: %v", err))
	}
	c := r.cli("--map-write=" + f)
	return life(id, expect, exitScanSource, judgeExitScan(c, []string{f, f + ".link"}, true))
}

// privileged makes path a 4096-byte file with mode, and with caps
// cap_net_bind_service=ep (a VFS_CAP_REVISION_2 security.capability).
func privileged(path string, mode os.FileMode, caps bool) error {
	if err := os.WriteFile(path, make([]byte, 4096), 0o755); err != nil {
		return err
	}
	if err := unix.Chmod(path, uint32(mode)); err != nil {
		return err
	}
	if !caps {
		return nil
	}
	v := make([]byte, 20)
	binary.LittleEndian.PutUint32(v[0:], 0x02000000|1) // revision 2, effective
	binary.LittleEndian.PutUint32(v[4:], 1<<unix.CAP_NET_BIND_SERVICE)
	return unix.Setxattr(path, "security.capability", v, 0)
}

// judgeExitScan runs the launch c with a minute's bound, then checks that
// the member's content reached each of paths that exists (so the attack
// happened), that none is set-id or, with caps, carries file
// capabilities, and that acbox named each on its standard error, as
// policy.Quote shows it.
func judgeExitScan(c *exec.Cmd, paths []string, caps bool) Outcome {
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	code, err := status(c, 60*time.Second)
	if err != nil {
		return errorf("%v", err)
	}
	if !strings.Contains(out.String(), "mapped ") {
		return errorf("the member could not rewrite the file (exit %d): %s", code, strings.TrimSpace(out.String()))
	}
	var seen []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && strings.HasSuffix(p, ".link") {
			continue // the member could not link it
		}
		if err != nil || !strings.HasPrefix(string(b), memberContent) {
			return errorf("%s does not hold the member's content: the attack did not happen", p)
		}
		if o := privilegeOf(p, caps); o != "" {
			return failf("%s holds the member's program and %s after the run (acbox exit %d)", p, o, code)
		}
		if !strings.Contains(errb.String(), policy.Quote(p)+"; acbox removed its") {
			return failf("acbox did not name %s on its standard error: %s", p, strings.TrimSpace(errb.String()))
		}
		seen = append(seen, policy.Quote(filepath.Base(p)))
	}
	// A name is shown quoted, never raw (exitScanNameQuoted).
	if strings.ContainsAny(errb.String(), "\x1b\r") {
		return failf("a raw control byte reached acbox's standard error: %q", errb.String())
	}
	return passf("the member's content, no privilege left (acbox exit %d): %s", code, strings.Join(seen, ", "))
}

// privilegeOf names what privilege path still carries, "" for none.
func privilegeOf(path string, caps bool) string {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return "could not be checked: " + err.Error()
	}
	if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
		return fmt.Sprintf("mode %o", st.Mode&0o7777)
	}
	if _, err := unix.Lgetxattr(path, "security.capability", nil); caps && err == nil {
		return "file capabilities"
	}
	return ""
}
