//go:build integration

package probe

import (
	"github.com/acbox/acbox/tests/testenv"

	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSelftest runs `acbox selftest --json` from ACBOX_BIN as the caller
// and, when the caller is root, also as ACBOX_TEST_USER (default
// acbox-test, created with useradd when missing). Any fail or error line
// fails the test, and names the probe.
func TestSelftest(t *testing.T) {
	bin := os.Getenv("ACBOX_BIN")
	if bin == "" {
		t.Skip("ACBOX_BIN is not set; run `make integration`")
	}
	t.Run("caller", func(t *testing.T) { checkSelftest(t, selftestCmd(bin, nil)) })
	if os.Getuid() != 0 {
		return
	}
	u := testUser(t)
	cmd := selftestCmd(bin, u)
	t.Run("user "+u.Username, func(t *testing.T) { checkSelftest(t, cmd) })
}

func selftestCmd(bin string, u *user.User) *exec.Cmd {
	c := exec.Command(bin, "selftest", "--json", "--all")
	c.Dir = "/"
	if u == nil {
		return c
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	c.Env = []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	return c
}

func testUser(t *testing.T) *user.User {
	u, err := testenv.User()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func checkSelftest(t *testing.T, c *exec.Cmd) {
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		c.Process.Kill()
		t.Fatalf("selftest did not finish in 3 minutes; stderr:\n%s", stderr.String())
	}
	n, life, oracles := 0, 0, 0
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var l Line
		if jerr := json.Unmarshal(sc.Bytes(), &l); jerr != nil {
			t.Errorf("not a JSON line: %q", sc.Text())
			continue
		}
		n++
		if l.Category == Lifecycle {
			life++
		}
		if strings.HasPrefix(l.ID, "oracle.") {
			oracles++
		}
		if l.Result == Fail || l.Result == Error {
			t.Errorf("%s %s: %s (expected: %s)", l.Result, l.ID, l.Detail, l.Expect)
		}
	}
	if n-life-oracles < 60 || life < 10 {
		t.Errorf("%d probe lines and %d lifecycle scenarios; issue 8 wants at least 60 and 10", n-life-oracles, life)
	}
	if err != nil && !t.Failed() {
		t.Errorf("selftest exited with %v but printed no failure; stderr:\n%s", err, stderr.String())
	}
	t.Logf("%d lines; %s", n, bytes.TrimSpace(stderr.Bytes()))
}
