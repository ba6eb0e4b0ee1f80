//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn runs acbox in mode m from dir (the launch directory).
func runIn(t *testing.T, m mode, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := m.command(ctx, nil, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("starting acbox %q: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: exitCode(cmd.ProcessState)}
}

// TestCheckedBeforeRun: what can be checked before the member starts is
// checked before it starts: an unwritable --report, a missing --spec, a
// closed --status-fd are refused and the command never runs.
func TestCheckedBeforeRun(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		cases := []struct {
			args []string
			want string
		}{
			{[]string{"--report", "/nonexistent/r.json"}, "--report /nonexistent/r.json cannot be written"},
			{[]string{"--report", w}, "is a directory"},
			{[]string{"--spec", filepath.Join(w, "missing.json")}, "cannot be read"},
			{[]string{"--status-fd", "7"}, "--status-fd 7 is not open"},
			{[]string{"--cwd", "nope"}, "nope"},
		}
		for _, c := range cases {
			args := append(append([]string{"run", "-w", w}, c.args...), "--", "sh", "-c", "echo RAN; touch "+w+"/ran")
			res := runBox(t, m, args...)
			if strings.Contains(res.stdout, "RAN") || res.code == 0 || !strings.Contains(res.stderr, c.want) {
				t.Errorf("%q: want a refusal naming %q before anything runs; %v", c.args, c.want, res)
			}
			if _, err := os.Stat(filepath.Join(w, "ran")); err == nil {
				t.Fatalf("%q: the command ran", c.args)
			}
		}
	})
}

// TestReportKeepsStatus: the report is written after the run; a report
// that cannot be written that late (/dev/full) is named on stderr and the
// member's own status is kept. A refused launch leaves no report file.
func TestReportKeepsStatus(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		w := fx.dir("w")
		rep := filepath.Join(w, "r.json")
		if res := runBox(t, m, "run", "--report", rep, "--", "sh", "-c", "exit 3"); res.code != 3 {
			t.Fatalf("want the member's 3: %v", res)
		}
		if b, err := os.ReadFile(rep); err != nil || !bytes.Contains(b, []byte(`"backend"`)) {
			t.Fatalf("report: %v %s", err, b)
		}
		res := runBox(t, m, "run", "--report", "/dev/full", "--", "sh", "-c", "exit 5")
		if res.code != 5 || !strings.Contains(res.stderr, "writing the report failed after the run") {
			t.Fatalf("want the member's 5 and the failure on stderr: %v", res)
		}
		gone := filepath.Join(w, "refused.json")
		if res := runBox(t, m, "run", "--report", gone, "--memory", "2", "--", "true"); res.code == 0 {
			t.Fatalf("want a refusal: %v", res)
		}
		if _, err := os.Stat(gone); err == nil {
			t.Fatal("a refused launch left its report file")
		}
	})
}

// TestRelativePaths: relative paths in every path-taking flag resolve
// against the launch directory: grants (-w .), --cwd, --report, --spec and
// --mount sources.
func TestRelativePaths(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		repo := fx.dir("repo")
		fx.dir("repo/sub")
		fx.file("repo/data.txt", "DATA\n")
		fx.file("repo/spec.json", `{"command":["sh","-c","pwd; cat /mnt/acbox-data"]}`)
		res := runIn(t, m, repo, "run", "-w", ".", "--cwd", "sub", "--report", "rep.json", "--spec", "spec.json",
			"--mount", "data.txt:/mnt/acbox-data")
		if res.code != 0 || res.stdout != filepath.Join(repo, "sub")+"\nDATA\n" {
			t.Fatalf("want pwd %s/sub and the mounted file: %v", repo, res)
		}
		if _, err := os.Stat(filepath.Join(repo, "rep.json")); err != nil {
			t.Fatalf("the report is not beside the launch: %v", err)
		}
	})
}

// TestCwdNotGranted: a launch directory outside every grant is named on
// stderr with where the command runs and how to grant it; -w . grants it.
func TestCwdNotGranted(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		repo := fx.dir("repo")
		res := runIn(t, m, repo, "run", "--", "pwd")
		if res.code != 0 || res.stdout != m.home+"\n" {
			t.Fatalf("want the private home: %v", res)
		}
		for _, want := range []string{"the current directory " + repo + " is not granted", "runs in " + m.home, "-w .", "-r ."} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q: %v", want, res)
			}
		}
		res = runIn(t, m, repo, "run", "-w", ".", "--", "pwd")
		if res.code != 0 || res.stdout != repo+"\n" || strings.Contains(res.stderr, "not granted") {
			t.Fatalf("-w . should run in %s quietly: %v", repo, res)
		}
	})
}

// TestEnvWithComma: a value is one value.
func TestEnvWithComma(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		d := fx.dir("a,b")
		res := runBox(t, m, "run", "-r", d, "--env", "FOO=a,b", "--", "sh", "-c", `echo "$FOO"; ls -d "$1"`, "sh", d)
		if res.code != 0 || res.stdout != "a,b\n"+d+"\n" {
			t.Fatalf("%v", res)
		}
	})
}

// TestFirstHelpExample runs the first example of `acbox run --help` as
// printed: a build in the repository the user is in.
func TestFirstHelpExample(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	forEachMode(t, func(t *testing.T, m mode) {
		fx := newFixture(t, m)
		repo := fx.dir("repo")
		fx.file("repo/Makefile", "test:\n\techo built > out.txt\n")
		help := runBox(t, m, "run", "--help")
		_, line, ok := strings.Cut(help.stdout, "\nExamples:\n")
		_, line, _ = strings.Cut(line, "$ acbox ")
		line, _, _ = strings.Cut(line, "\n")
		if !ok || line == "" {
			t.Fatalf("no first example: %v", help)
		}
		res := runIn(t, m, repo, strings.Fields(line)...)
		if res.code != 0 {
			t.Fatalf("acbox %s: %v", line, res)
		}
		if b, err := os.ReadFile(filepath.Join(repo, "out.txt")); err != nil || string(b) != "built\n" {
			t.Fatalf("the build wrote %q, %v", b, err)
		}
	})
}
