//go:build integration

package views

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fixture is what one test puts into w's real home:
//
//	~/acbox-views-<pid>/plain.txt     a host file: readable, never writable
//	~/acbox-views-<pid>/work/         the write grant
//	~/acbox-views-<pid>/excluded/s    hidden by --exclude
//	~/acbox-views-<pid>/aws/credentials  the real directory behind ~/.aws
//	~/.aws -> ~/acbox-views-<pid>/aws  a symlinked credential directory
//	~/.ssh/acbox-views-id, ~/.netrc, ~/.config/gh/hosts.yml,
//	~/.cargo/credentials.toml, ~/.gnupg/acbox-views-key
//
// A credential path that already exists is left alone (and still checked);
// Close removes exactly what was created, deepest first.
type fixture struct {
	w       who
	data    string
	created []string
	creds   []string // credential paths to check, as a member names them
}

const secret = "acbox-views-secret"

func newFixture(t *testing.T, w who) *fixture {
	f := &fixture{w: w, data: filepath.Join(w.home, "acbox-views-"+strconv.Itoa(os.Getpid()))}
	t.Cleanup(f.close)
	f.mkdir(t, f.data)
	f.file(t, filepath.Join(f.data, "plain.txt"), "plain")
	f.mkdir(t, filepath.Join(f.data, "work"))
	f.file(t, filepath.Join(f.data, "excluded", "s"), secret)
	f.file(t, filepath.Join(f.data, "aws", "credentials"), secret)
	f.link(t, filepath.Join(f.data, "aws"), filepath.Join(w.home, ".aws"))
	// One file under every credential mask of the home (coordinator's
	// CredentialMasks), each checked unreadable from inside.
	homeCreds := []string{".ssh/acbox-views-id", ".netrc", ".config/gh/hosts.yml", ".cargo/credentials.toml", ".gnupg/acbox-views-key",
		".git-credentials", ".azure/acbox-views", ".config/gcloud/acbox-views", ".kube/acbox-views", ".docker/acbox-views",
		".npmrc", ".pypirc", ".password-store/acbox-views.gpg", ".local/share/keyrings/acbox-views", ".mozilla/acbox-views",
		".config/google-chrome/acbox-views", ".config/chromium/acbox-views"}
	for _, c := range homeCreds {
		f.file(t, filepath.Join(w.home, c), secret)
		f.creds = append(f.creds, "~/"+c)
	}
	f.creds = append(f.creds, "~/.aws", "~/.aws/credentials", f.data+"/aws/credentials")
	return f
}

// mkdir creates every missing directory of p, owned by the fixture's user.
func (f *fixture) mkdir(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		return
	}
	f.mkdir(t, filepath.Dir(p))
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	f.own(t, p)
}

// file writes p unless something exists there already.
func (f *fixture) file(t *testing.T, p, content string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	f.mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f.own(t, p)
}

func (f *fixture) link(t *testing.T, target, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	f.own(t, p)
}

func (f *fixture) own(t *testing.T, p string) {
	t.Helper()
	f.created = append(f.created, p)
	if os.Geteuid() == 0 {
		if err := os.Lchown(p, f.w.uid, f.w.gid); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) close() {
	os.RemoveAll(f.data) // with what the sandbox wrote into the grant
	for i := len(f.created) - 1; i >= 0; i-- {
		os.Remove(f.created[i])
	}
}

// expand turns a leading ~ into the home directory.
func (f *fixture) expand(p string) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok {
		return f.w.home + rest
	}
	return p
}
