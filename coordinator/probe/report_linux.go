package probe

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

const reportSrc = "README `--report FILE`; docs/security.md Ceilings (--report FILE in a write grant)"

// reportReplaced: a member with a write grant over --report FILE's
// directory renames its own file over FILE; after the run FILE holds
// acbox's report (with the sandbox's id), not the member's, and acbox says
// so on standard error.
func (r *Runner) reportReplaced() Line {
	const id = "life.report-replaced"
	const expect = "a member that renames its own file over --report FILE leaves FILE holding acbox's report after the run (exit 0, a warning on stderr)"
	dir := filepath.Join(r.Fixture.Write, "report-"+randHex(4))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return life(id, expect, reportSrc, errorf("%v", err))
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "report.json")
	forged := `{"exit_scan":{"git_redirects":[]}}`
	script := `printf '%s' '` + forged + `' > ` + filepath.Join(dir, ".r") + ` && mv ` + filepath.Join(dir, ".r") + " " + file
	args := append(r.runFlags(), "--report", file, "--write", dir, "--cwd", dir, "--", "sh", "-c", script)
	c := exec.Command(r.Exe, args...)
	var errb bytes.Buffer
	c.Stderr = &errb
	code, err := status(c, 60*time.Second)
	if err != nil {
		return life(id, expect, reportSrc, errorf("%v", err))
	}
	b, _ := os.ReadFile(file)
	switch {
	case bytes.Equal(bytes.TrimSpace(b), []byte(forged)):
		return life(id, expect, reportSrc, failf("%s holds the member's file after the run (exit %d)", file, code))
	case code != 0 || !bytes.Contains(b, []byte(`"id": "`)):
		return life(id, expect, reportSrc, failf("exit %d, %s holds %d bytes without the sandbox's id; stderr: %s", code, file, len(b), errb.Bytes()))
	case !bytes.Contains(errb.Bytes(), []byte("was replaced or removed")):
		return life(id, expect, reportSrc, failf("%s holds the report but acbox said nothing; stderr: %s", file, errb.Bytes()))
	}
	return life(id, expect, reportSrc, passf("%s holds acbox's report, stderr names the replacement", file))
}
