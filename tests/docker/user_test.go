//go:build integration

package docker_test

import (
	"github.com/acbox/acbox/tests/testenv"

	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAsDockerGroupUser runs acbox as an unprivileged user whose only
// extra right is the docker group (root-equivalent, but not root): the
// container runs as that user, and both identity checks of the start gate
// (in-container and /proc/<pid>/root from the host) run.
func TestAsDockerGroupUser(t *testing.T) {
	e := setup(t)
	u, grp := testUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dockerGID, _ := strconv.Atoi(grp.Gid)
	_, rw := dirs(t)
	os.Chown(filepath.Dir(rw), uid, gid)
	os.Chown(rw, uid, gid)
	rep := filepath.Join(rw, "report.json")
	cmd := exec.Command(e.bin, "run", "--backend", "docker", "--image", image, "--no-tty", "-w", rw, "--report", rep,
		"--", "sh", "-c", "echo x > "+rw+"/by-user; id -u")
	cmd.Dir, cmd.Env = rw, []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{uint32(dockerGID)}}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != u.Uid {
		t.Fatalf("as %s: %v\n%s", u.Username, err, out.String())
	}
	st, err := os.Stat(filepath.Join(rw, "by-user"))
	if err != nil {
		t.Fatal(err)
	}
	if fu, _ := fileOwner(st); fu != uid {
		t.Errorf("file owned by uid %d; want %d", fu, uid)
	}
	b, _ := os.ReadFile(rep)
	if !strings.Contains(string(b), "/proc/\\u003cpid\\u003e/root from the host") {
		t.Errorf("the host-side identity check did not run for a docker-group user:\n%s", b)
	}
}

// testUser is ACBOX_TEST_USER (default acbox-test) and the docker group;
// the test needs root to switch to them.
func testUser(t *testing.T) (*user.User, *user.Group) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run acbox as another user")
	}
	u, err := testenv.User()
	if err != nil {
		t.Skip(err)
	}
	g, err := user.LookupGroup("docker")
	if err != nil {
		t.Skip("no docker group on this host")
	}
	return u, g
}
