package nsjail_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acbox/acbox/tests/testenv"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/nsjail"
)

// The test binary doubles as the sandbox's pid 1, as the acbox binary does.
func TestMain(m *testing.M) {
	if nsjail.IsHelper() {
		nsjail.HelperMain()
	}
	os.Exit(m.Run())
}

// swapCase replaces the grant between the parent's open and the helper's
// mount; the launch must fail and the member must never run.
type swapCase struct {
	name string
	swap func(grant, decoy string) error
}

var swapCases = []swapCase{
	{"symlink", func(g, decoy string) error {
		if err := os.Rename(g, g+".orig"); err != nil {
			return err
		}
		return os.Symlink(decoy, g)
	}},
	{"other directory", func(g, decoy string) error {
		if err := os.Rename(g, g+".orig"); err != nil {
			return err
		}
		return os.Rename(decoy, g)
	}},
}

func TestGrantSwapRace(t *testing.T) {
	if os.Getenv("ACBOX_SWAP_CHILD") == "" && os.Getuid() == 0 {
		t.Run("unprivileged", runAsTestUser)
	}
	for _, c := range swapCases {
		t.Run(c.name, func(t *testing.T) { checkSwap(t, c) })
	}
}

func checkSwap(t *testing.T, c swapCase) {
	dir := os.Getenv("ACBOX_SWAP_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	base, err := os.MkdirTemp(dir, "swap")
	if err != nil {
		t.Fatal(err)
	}
	grant, decoy := filepath.Join(base, "grant"), filepath.Join(base, "decoy")
	os.Mkdir(grant, 0o755)
	os.Mkdir(decoy, 0o755)
	os.WriteFile(filepath.Join(decoy, "marker"), []byte("decoy"), 0o644)
	plan := planFor(t, grant, "cat "+grant+"/marker; echo RAN")
	out, errOut := pipeFile(t), pipeFile(t)
	opt := nsjail.Options{Stdout: out.w, Stderr: errOut.w, Stdin: nil}
	opt.SetAfterOpen(func() {
		if err := c.swap(grant, decoy); err != nil {
			t.Errorf("swap: %v", err)
		}
	})
	res, err := nsjail.Launch(plan, opt)
	stdout := out.read()
	if err == nil {
		t.Fatalf("launch succeeded after the grant was swapped (code %d, stdout %q)", res.Code, stdout)
	}
	if !errors.Is(err, policy.ErrCannotSandbox) || strings.Contains(stdout, "RAN") {
		t.Fatalf("want a refusal before the member runs; got %v, stdout %q", err, stdout)
	}
	t.Logf("refused as expected: %v", err)
}

func planFor(t *testing.T, grant, script string) *policy.Plan {
	t.Helper()
	h, err := policy.HostFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	h.Cwd = "/"
	p, err := policy.Resolve(policy.Spec{Command: []string{"sh", "-c", script}, Access: policy.Access{Read: []string{grant}}}, h)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type pipe struct{ r, w *os.File }

func pipeFile(t *testing.T) pipe {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return pipe{r, w}
}

func (p pipe) read() string {
	p.w.Close()
	b, _ := io.ReadAll(p.r)
	return string(b)
}

// runAsTestUser re-runs this test as the unprivileged test user, from a
// copy of the test binary that user can read.
func runAsTestUser(t *testing.T) {
	u, err := user.Lookup(testenv.UserName())
	if err != nil {
		t.Skipf("no test user %q (make integration creates it): %v", testenv.UserName(), err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "acbox-swap")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe := filepath.Join(dir, "nsjail.test")
	if err := copyFile(exe); err != nil {
		t.Fatal(err)
	}
	os.Chown(dir, uid, gid)
	cmd := exec.Command(exe, "-test.run=^TestGrantSwapRace$", "-test.v")
	cmd.Env = []string{"ACBOX_SWAP_CHILD=1", "ACBOX_SWAP_DIR=" + dir, "HOME=" + u.HomeDir, "USER=" + u.Username, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as %s: %v\n%s", u.Username, err, out)
	}
	if !strings.Contains(string(out), "refused as expected") {
		t.Fatalf("as %s: no refusal seen:\n%s", u.Username, out)
	}
}

func copyFile(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}
