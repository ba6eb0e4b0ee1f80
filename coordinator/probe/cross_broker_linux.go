package probe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// crossSandboxBroker is the attack of a sandbox on a broker that is not
// its own. Sandbox A gets only a read grant of DIR; sandbox B is started
// after it with XDG_RUNTIME_DIR=DIR/xdg (a place no launch used before, so
// in no mask of A's, which are taken at launch) and a write grant of
// DIR/bw. A's member finds B's broker socket under its read grant (a
// read-only mount does not stop connect(2)) and asks it for a child
// writing DIR/bw. The broker must refuse a process outside B.
func (r *Runner) crossSandboxBroker() Line {
	const id, expect = "life.cross-sandbox-broker", "a sandbox that sees another sandbox's run directory (a later launch's XDG_RUNTIME_DIR under its read grant) is refused by that sandbox's broker and gets no child with its write grant"
	const src = "acbox design (the broker and the proxy check who connects)"
	if r.docker() {
		return life(id, expect, src, skipf("the docker backend has no nested launches"))
	}
	dir, err := os.MkdirTemp(r.Fixture.Base, "cross-")
	if err != nil {
		return life(id, expect, src, errorf("fixture: %s", err.Error()))
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"bw", "xdg"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return life(id, expect, src, errorf("fixture: %s", err.Error()))
		}
	}
	var aOut bytes.Buffer
	a := r.cliWith([]string{"--read", dir}, "--cross-broker", dir)
	a.Stdout, a.Stderr = &aOut, &aOut
	if err := a.Start(); err != nil {
		return life(id, expect, src, errorf("sandbox A: %s", err.Error()))
	}
	time.Sleep(time.Second)
	b := exec.Command(r.Exe, append(r.runFlags(), "--delegate", "--write", filepath.Join(dir, "bw"), "--", "sleep", "5")...)
	b.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "xdg"))
	bOut, _ := b.CombinedOutput()
	code, _ := status(a, 30*time.Second)
	text := strings.Join(strings.Fields(aOut.String()), " ")
	if _, err := os.Lstat(filepath.Join(dir, "bw", "pwned")); err == nil {
		return life(id, expect, src, failf("A's child wrote B's write grant: %s", text))
	}
	switch code {
	case 0:
		return life(id, expect, src, passf("refused: %s", text))
	case 2:
		return life(id, expect, src, errorf("B's broker socket never appeared (B: %s)", strings.TrimSpace(string(bOut))))
	}
	return life(id, expect, src, failf("exit %d: %s", code, text))
}

// crossBroker is the member of sandbox A: it waits for a broker socket
// under dir and sends it a request for a child writing dir/bw, as acbox's
// own nested client would (a length, the JSON, the three standard
// streams). Exit 0: refused; 1: the child ran; 2: no socket appeared.
func crossBroker(dir string) int {
	var socks []string
	for deadline := time.Now().Add(15 * time.Second); len(socks) == 0 && time.Now().Before(deadline); {
		socks, _ = filepath.Glob(filepath.Join(dir, "xdg", "acbox", "run", "*", "broker.sock"))
		time.Sleep(100 * time.Millisecond)
	}
	if len(socks) == 0 {
		return 2
	}
	bw := filepath.Join(dir, "bw")
	body, _ := json.Marshal(map[string]any{"report": false, "spec": map[string]any{
		"command": []string{"sh", "-c", "echo pwned > " + filepath.Join(bw, "pwned")},
		"access":  map[string]any{"write": []string{bw}}}})
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socks[0], Net: "unix"})
	if err != nil {
		fmt.Printf("connect refused by the kernel: %s\n", err.Error())
		return 0
	}
	defer c.Close()
	msg := append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	if _, _, err := c.WriteMsgUnix(msg, unix.UnixRights(0, 1, 2), nil); err != nil {
		fmt.Printf("send failed: %s\n", err.Error())
		return 0
	}
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	reply, _ := io.ReadAll(c)
	fmt.Printf("broker: %s\n", bytes.TrimSpace(reply))
	if bytes.Contains(reply, []byte(`"error"`)) && !bytes.Contains(reply, []byte(`"exit"`)) {
		return 0
	}
	return 1
}
