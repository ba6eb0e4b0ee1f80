package probe

import (
	"os"
	"path/filepath"
)

const namesSource = "acbox attack finding (attack2, repro-2): a member's file name, printed raw in acbox's warnings after the run, erased them and printed a forged line"

// hostileName erases the line it is printed on, writes a reassuring one
// in its place and hides what follows (CR, CSI 2K, SGR 8).
const hostileName = "x\r\x1b[2Kacbox: exit scan: nothing to report\x1b[8m"

// exitScanNameQuoted: a set-id file in the write grant whose name holds
// hostileName, rewritten by the member through a shared mapping. The exit
// scan strips its set-id bit and names it (and its new hard link) on
// standard error quoted (policy.Quote), with no raw control byte
// (judgeExitScan), so the warning cannot be erased or forged.
func (r *Runner) exitScanNameQuoted() Line {
	const id = "life.exitscan-name-quoted"
	const expect = "a set-id file in a write grant named with a carriage return and escape sequences (and its new hard link), rewritten by the member, has no set-id bit after the run and is named quoted on acbox's standard error, with no raw control byte"
	f := filepath.Join(r.Fixture.Write, "suid-"+randHex(4)+hostileName)
	defer os.Remove(f)
	defer os.Remove(f + ".link")
	if err := privileged(f, 0o4755, false); err != nil {
		return life(id, expect, namesSource, errorf("fixture: %v", err))
	}
	return life(id, expect, namesSource, judgeExitScan(r.cli("--map-write="+f), []string{f, f + ".link"}, false))
}
