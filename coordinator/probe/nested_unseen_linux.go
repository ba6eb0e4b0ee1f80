package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nestedUnseen: a delegating member asks its broker for children that
// would make acbox read, on its behalf, a path it cannot see: a git
// include of a file outside its grants in a repository it planted, and
// an --exclude of that file, and a --cwd through a link the member made
// in its write grant to that file's directory; each also for a name that
// does not exist there. Each must be refused (125), the existing and the
// missing path alike (no existence oracle: a --cwd through such a link
// was refused naming the hidden path when it existed, accepted when not),
// and no refusal may quote the file.
func (r *Runner) nestedUnseen() Line {
	const id, expect = "life.nested-unseen", "a nested launch naming a path its requester cannot see (a git include in a repository the member planted, an --exclude, a --cwd through a link it made) is refused alike whether the path exists or not, and the refusal quotes nothing of the file"
	const src = "acbox design (a nested launch reads only what its requester sees)"
	if r.docker() {
		return life(id, expect, src, skipf("the docker backend has no nested launches"))
	}
	hidden, err := os.MkdirTemp(filepath.Join(r.Fixture.Base, "outside"), "unseen-")
	if err != nil {
		return life(id, expect, src, errorf("fixture: %s", err.Error()))
	}
	defer os.RemoveAll(hidden)
	const content = "sk-UNSEENPROBE42"
	secret, missing := filepath.Join(hidden, "key"), filepath.Join(hidden, "nope")
	if err := os.WriteFile(secret, []byte(content+"\n"), 0o600); err != nil {
		return life(id, expect, src, errorf("fixture: %s", err.Error()))
	}
	w := filepath.Join(r.Fixture.Write, "unseen-"+randHex(4))
	defer os.RemoveAll(w)
	script := `set -u; cd "$W" && mkdir -p nx/.git/objects nx/.git/refs && echo 'ref: refs/heads/main' > nx/.git/HEAD
for p in "$S" "$M"; do printf '[include]\n\tpath = %s\n' "$p" > nx/.git/config; acbox run -w "$W" -- true 2>&1; echo "include=$?"; done
for p in "$S" "$M"; do acbox run -w "$W" --exclude "$p" -- true 2>&1; echo "exclude=$?"; done
ln -s "$(dirname "$S")" l; for p in "$S" "$M"; do acbox run -w "$W" --cwd "$W/l/$(basename "$p")" -- true 2>&1; echo "cwd=$?"; done`
	if err := os.Mkdir(w, 0o700); err != nil {
		return life(id, expect, src, errorf("fixture: %s", err.Error()))
	}
	args := append(r.runFlags(), "--delegate", "--write", w, "--cwd", w, "--env", "W="+w, "--env", "S="+secret, "--env", "M="+missing, "--", "sh", "-c", script)
	c := exec.Command(r.Exe, args...)
	out, _ := c.CombinedOutput()
	text := string(out)
	flat := strings.Join(strings.Fields(text), " ")
	if strings.Contains(strings.ToLower(text), strings.ToLower(content)) {
		return life(id, expect, src, failf("a refusal quotes the hidden file: %s", flat))
	}
	if n := strings.Count(text, "include=125") + strings.Count(text, "exclude=125") + strings.Count(text, "cwd=125"); n != 6 {
		return life(id, expect, src, failf("%d of 6 refused (125): %s", n, flat))
	}
	if strings.Count(strings.ReplaceAll(text, secret, missing), "cannot see it") != 6 {
		return life(id, expect, src, failf("the refusals differ between the existing and the missing path: %s", flat))
	}
	return life(id, expect, src, passf("refused alike: %s", flat))
}
