//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// TestGrants: a write grant is writable and what the member writes appears
// on the host owned by the invoking user; a read grant is readable and not
// writable; a read grant nested in a write grant stays read-only, and a
// write grant nested in a read grant is writable.
func TestGrants(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w, ro := fx.dir("w"), fx.dir("w/ro")
		r, rw := fx.dir("r"), fx.dir("r/rw")
		fx.file("r/data", "read-data\n")
		fx.file("w/ro/data", "nested-data\n")
		flags := []string{"-w", w, "-r", ro, "-r", r, "-w", rw, "--cwd", w,
			"--env", "W=" + w, "--env", "RO=" + ro, "--env", "R=" + r, "--env", "RW=" + rw}
		probe(t, m, flags, `
yes write-grant-create   'echo new > "$W/new"'
yes write-grant-mkdir    'mkdir "$W/sub" && echo x > "$W/sub/f"'
yes write-grant-remove   'echo x > "$W/gone" && rm "$W/gone"'
yes read-grant-readable  'grep -qx read-data "$R/data"'
yes read-grant-listable  'ls "$R" | grep -qx data'
no  read-grant-create    'echo x > "$R/x"'
no  read-grant-overwrite 'echo x > "$R/data"'
no  read-grant-remove    'rm -f "$R/data"'
no  read-grant-mkdir     'mkdir "$R/d"'
no  read-grant-chmod     'chmod 777 "$R/data"'
yes nested-ro-readable   'grep -qx nested-data "$RO/data"'
no  nested-ro-create     'echo x > "$RO/x"'
no  nested-ro-overwrite  'echo x > "$RO/data"'
yes nested-rw-create     'echo x > "$RW/x"'
yes relative-to-cwd      'echo rel > ./rel'
`)
		for _, p := range []string{filepath.Join(w, "new"), filepath.Join(w, "sub", "f"), filepath.Join(w, "rel"), filepath.Join(rw, "x")} {
			requireOwned(t, p, m)
		}
		for _, p := range []string{filepath.Join(r, "x"), filepath.Join(ro, "x"), filepath.Join(r, "d")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s was created on the host through a read grant", p)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(r, "data")); string(b) != "read-data\n" {
			t.Errorf("%s/data changed through a read grant: %q", r, b)
		}
	})
}

func requireOwned(t *testing.T, p string, m mode) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Errorf("member's file is missing on the host: %v", err)
		return
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != m.uid || int(st.Gid) != m.gid {
		t.Errorf("%s is owned by %d:%d on the host, want the invoking user %d:%d", p, st.Uid, st.Gid, m.uid, m.gid)
	}
}

// TestHostInvisible: nothing of the host outside the grants is visible: a
// canary beside the grant, a canary in the user's real home, every top-level
// host directory that is not a system directory; /usr and /etc are
// read-only.
func TestHostInvisible(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		other := fx.file("other/canary", "host-canary\n")
		homeCanary := homeEntry(t, m, ".acbox-it-canary-"+randHex(4), []byte("home-canary\n"))
		script := `
yes canaries-named   'test -n "$OTHER" && test -n "$HOMECANARY"'
no  sibling-canary   'cat "$OTHER"'
no  sibling-dir      'ls "$(dirname "$OTHER")"'
no  home-canary      'cat "$HOMECANARY"'
yes home-is-empty    'test -z "$(ls -A "$HOME")"'
no  write-usr        'echo x > /usr/acbox-it-x'
no  write-usr-bin    'echo x > /usr/bin/acbox-it-x'
no  write-etc        'echo x > /etc/acbox-it-x'
no  etc-passwd-write 'echo x >> /etc/passwd'
no  mkdir-root       'mkdir /acbox-it-x'
yes usr-readable     'test -x /usr/bin/env'
no  sys              'test -e /sys/kernel'
`
		for _, name := range hiddenTopLevel(m, w) {
			script += "no top-level-" + name + " 'test -e /" + name + "'\n"
		}
		probe(t, m, []string{"-w", w, "--env", "OTHER=" + other, "--env", "HOMECANARY=" + homeCanary}, script)
		for _, p := range []string{"/usr/acbox-it-x", "/usr/bin/acbox-it-x", "/etc/acbox-it-x", "/acbox-it-x"} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("the member created %s on the host", p)
				os.Remove(p)
			}
		}
	})
}

// allowedTopLevel is what / may hold inside a sandbox with these grants:
// the system directories and merged-/usr links, proc, dev, tmp, and the
// first component of the home and of each grant.
func allowedTopLevel(m mode, grants ...string) map[string]bool {
	ok := map[string]bool{"proc": true, "dev": true, "tmp": true}
	for _, s := range []string{"usr", "etc", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"} {
		if _, err := os.Lstat("/" + s); err == nil {
			ok[s] = true
		}
	}
	for _, p := range append([]string{m.home}, grants...) {
		ok[strings.Split(strings.TrimPrefix(p, "/"), "/")[0]] = true
	}
	return ok
}

// hiddenTopLevel lists the host's top-level entries a member must not see.
func hiddenTopLevel(m mode, grants ...string) []string {
	ok := allowedTopLevel(m, grants...)
	ents, _ := os.ReadDir("/")
	var out []string
	for _, e := range ents {
		if !ok[e.Name()] && !strings.ContainsAny(e.Name(), "'\"$` ") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestRootListing: `ls /` works inside and shows only the system
// directories, proc, dev, tmp, the home path and the grants' parents.
func TestRootListing(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		r := runBox(t, m, "run", "-w", w, "--", "ls", "-A", "/")
		if r.code != 0 {
			t.Fatalf("`ls -A /` inside the sandbox failed; the member cannot list its own root:\n%v", r)
		}
		ok := allowedTopLevel(m, w)
		var got []string
		for _, name := range strings.Fields(r.stdout) {
			got = append(got, name)
			if !ok[name] {
				t.Errorf("/%s is visible inside the sandbox", name)
			}
		}
		sort.Strings(got)
		for _, want := range []string{"usr", "etc", "proc", "dev", "tmp"} {
			if !contains(got, want) {
				t.Errorf("/%s is missing inside the sandbox (ls / = %v)", want, got)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestPrivateTmpAndHome: /tmp and $HOME are private tmpfs mounts: what the
// member writes there is not on the host and gone in the next run.
// --tmpfs PATH:SIZE adds one with that size cap, not created on the host.
func TestPrivateTmpAndHome(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		name := "acbox-it-" + randHex(4)
		extra := "/" + name + "-scratch"
		flags := []string{"--env", "NAME=" + name, "--env", "EXTRA=" + extra, "--tmpfs", extra + ":1MiB"}
		first := `
fstype() { awk -v p="$1" '$5 == p { t = $0 } END { sub(/.* - /, "", t); split(t, f, " "); print f[1] }' /proc/self/mountinfo; }
yes tmp-is-tmpfs     'test "$(fstype /tmp)" = tmpfs'
yes home-is-tmpfs    'test "$(fstype "$HOME")" = tmpfs'
yes extra-is-tmpfs   'test "$(fstype "$EXTRA")" = tmpfs'
yes tmp-writable     'echo x > "/tmp/$NAME"'
yes home-writable    'echo x > "$HOME/$NAME"'
yes extra-writable   'echo x > "$EXTRA/small"'
yes extra-size-1MiB  'test "$(df -k "$EXTRA" | awk "NR==2 {print \$2}")" = 1024'
no  extra-size-cap   'dd if=/dev/zero of="$EXTRA/big" bs=1024 count=2048'
`
		probe(t, m, flags, first)
		for _, p := range []string{"/tmp/" + name, filepath.Join(m.home, name), extra} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s exists on the host after the member wrote its private copy", p)
				os.RemoveAll(p)
			}
		}
		probe(t, m, flags, `
no  tmp-gone         'test -e "/tmp/$NAME"'
no  home-gone        'test -e "$HOME/$NAME"'
no  extra-gone       'test -e "$EXTRA/small"'
`)
	})
}

// TestHomeSubdirGrant: a directory inside the user's home can be granted;
// it shows over the private home while its siblings stay hidden.
func TestHomeSubdirGrant(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		proj := homeEntry(t, m, "acbox-it-proj-"+randHex(4), nil)
		sib := homeEntry(t, m, "acbox-it-sibling-"+randHex(4), []byte("sibling\n"))
		probe(t, m, []string{"-w", proj, "--cwd", proj, "--env", "SIB=" + sib, "--env", "PROJ=" + proj}, `
yes proj-writable  'echo x > ./made'
yes cwd-is-proj    'test "$(pwd)" = "$PROJ"'
no  sibling-hidden 'cat "$SIB"'
`)
		requireOwned(t, filepath.Join(proj, "made"), m)
	})
}
