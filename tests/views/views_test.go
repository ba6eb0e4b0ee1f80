//go:build integration

package views

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probe is one question asked inside the sandbox: a shell command and
// whether it must succeed.
type probe struct {
	name string
	cmd  string
	ok   bool
}

// script prints "name yes" or "name no" for every probe.
func script(ps []probe) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "if ( %s ) >/dev/null 2>&1; then echo '%s yes'; else echo '%s no'; fi\n", p.cmd, p.name, p.name)
	}
	return b.String()
}

func checkProbes(t *testing.T, ps []probe, out string) {
	t.Helper()
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, v, ok := strings.Cut(l, " "); ok {
			got[name] = v
		}
	}
	for _, p := range ps {
		want := map[bool]string{true: "yes", false: "no"}[p.ok]
		if got[p.name] != want {
			t.Errorf("%s (%s): got %q, want %s", p.name, p.cmd, got[p.name], want)
		}
	}
}

// readable is a probe that p shows content, which a masked directory or
// file never does (it fails or reads as empty); want is false for a mask.
func readable(name, p string, want bool) probe {
	return probe{name, fmt.Sprintf("test -n \"$(if [ -d %[1]q ]; then ls -A %[1]q; else cat %[1]q; fi)\"", p), want}
}

func credentialProbes(f *fixture) []probe {
	var ps []probe
	for i, c := range f.creds {
		ps = append(ps, readable(fmt.Sprintf("cred%d:%s", i, strings.ReplaceAll(c, " ", "_")), f.expand(c), false))
	}
	return ps
}

func TestHostView(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			host := filepath.Join(os.TempDir(), "acbox-views-host-marker")
			os.WriteFile(host, []byte("x"), 0o644)
			defer os.Remove(host)
			ps := append([]probe{
				{"host_file_readable", "grep -q plain " + f.data + "/plain.txt", true},
				readable("control_file", f.data+"/plain.txt", true),
				readable("control_dir", f.data+"/work", false), // empty: the probe cannot tell empty from masked
				readable("control_home", w.home, true),
				{"host_file_not_writable", "echo x >> " + f.data + "/plain.txt", false},
				{"home_not_writable", "touch ~/acbox-views-new", false},
				{"etc_readable", "test -r /etc/passwd && cat /etc/passwd", true},
				{"etc_not_writable", "touch /etc/acbox-views-new", false},
				{"write_grant", "echo w > " + f.data + "/work/out && grep -q w " + f.data + "/work/out", true},
				{"tmp_private", "test ! -e " + host, true},
				{"tmp_writable", "echo t > /tmp/t && grep -q t /tmp/t", true},
				{"excluded", "cat " + f.data + "/excluded/s", false},
				{"run_hidden", "ls /run", false},
				{"state_hidden", "ls ~/.local/state/acbox", false},
				{"proc_private", "test ! -e /proc/1/root/etc/passwd || test \"$(cat /proc/1/comm)\" = acbox-init", true},
			}, credentialProbes(f)...)
			out, errs, code := w.acbox(t, f.data, "run", "--view", "host", "--write", f.data+"/work",
				"--exclude", f.data+"/excluded", "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
			if b, err := os.ReadFile(f.data + "/work/out"); err != nil || string(b) != "w\n" {
				t.Errorf("the write grant's file is not on the host: %q %v", b, err)
			}
		})
	}
}

// The grants view masks credentials that lie inside a grant; here the real
// directory behind ~/.aws sits in the granted tree.
func TestGrantsViewMasksInsideGrants(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			ps := []probe{
				{"grant_readable", "grep -q plain " + f.data + "/plain.txt", true},
				readable("aws_real", f.data+"/aws/credentials", false),
				readable("control", f.data+"/plain.txt", true),
				readable("excluded", f.data+"/excluded/s", false),
				readable("ssh_invisible", w.home+"/.ssh/acbox-views-id", false),
			}
			out, errs, code := w.acbox(t, f.data, "run", "--read", f.data, "--exclude", f.data+"/excluded", "--", "sh", "-c", script(ps))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			checkProbes(t, ps, out)
		})
	}
}

// The plan and the report list every mask, the symlinked one by its real
// path with the credential path it came from.
func TestMasksInPlanAndReport(t *testing.T) {
	for _, w := range runners(t) {
		t.Run(w.name, func(t *testing.T) {
			f := newFixture(t, w)
			out, errs, code := w.acbox(t, f.data, "plan", "--view", "host", "--", "true")
			if code != 0 {
				t.Fatalf("plan: exit %d\n%s", code, errs)
			}
			var plan struct {
				Masks []struct{ Path, Via, Kind string }
			}
			if err := json.Unmarshal([]byte(out), &plan); err != nil {
				t.Fatal(err)
			}
			masks := map[string]string{}
			for _, m := range plan.Masks {
				masks[m.Path] = m.Via
			}
			if via, ok := masks[f.data+"/aws"]; !ok || via != w.home+"/.aws" {
				t.Errorf("~/.aws -> %s/aws: plan masks %v", f.data, masks)
			}
			for _, p := range []string{"/run", w.home + "/.ssh", w.home + "/.netrc", w.home + "/.config/gh"} {
				if _, ok := masks[p]; !ok {
					t.Errorf("plan does not mask %s: %v", p, masks)
				}
			}
			rep := f.data + "/work/report.json"
			if _, errs, code := w.acbox(t, f.data, "run", "--view", "host", "--report", rep, "--", "true"); code != 0 {
				t.Fatalf("run: exit %d\n%s", code, errs)
			}
			b, _ := os.ReadFile(rep)
			// The real directory behind ~/.aws is left out of the snapshot of
			// its parent, and the home and the root are snapshots too.
			for _, p := range []string{`"target": "` + f.data + `",` + "\n" + `      "kind": "view"`, `"target": "` + w.home + `",` + "\n" + `      "kind": "view"`,
				`"target": "/",` + "\n" + `      "kind": "view"`} {
				if !strings.Contains(string(b), p) {
					t.Errorf("report lacks %s:\n%s", p, b)
				}
			}
			if !strings.Contains(string(b), "hide=aws") {
				t.Errorf("report: the view of %s does not say it hides aws:\n%s", f.data, b)
			}
		})
	}
}

func TestViewAndProfileErrors(t *testing.T) {
	w := runners(t)[0]
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", "--view", "everything", "--", "true"}, 2, `view "everything"`},
		{[]string{"plan", "--profile", "nope-acbox-views", "--", "true"}, 2, "not found"},
		{[]string{"plan", "--profile", "../etc", "--", "true"}, 2, "profile name"},
	}
	for _, c := range cases {
		_, errs, code := w.acbox(t, w.home, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("acbox %v: exit %d %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
