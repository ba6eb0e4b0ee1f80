package main

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// kongRun parses args as Main's kong path does (kong, then onlyOnce) and
// returns the RunCmd, or the error.
func kongRun(t *testing.T, args []string) (*RunCmd, error) {
	var c runOnly
	ctx, err := newParser(t, &c).Parse(args)
	if err == nil {
		err = onlyOnce(ctx)
	}
	return &c.Run, err
}

// checkFast: whenever the fast parser accepts args, kong accepts them too
// and builds the same RunCmd. What the fast parser declines goes to kong.
func checkFast(t *testing.T, args []string) bool {
	t.Helper()
	fast, ok := parseRunFast(args)
	if !ok {
		return false
	}
	want, err := kongRun(t, args)
	if err != nil {
		t.Errorf("%q: the fast parser accepts what kong refuses (%v)", args, err)
		return true
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%q:\n fast %+v\n kong %+v", args, *fast, *want)
	}
	return true
}

var fastTable = [][]string{
	{"run"},
	{"run", "--", "true"},
	{"run", "true"},
	{"run", "true", "--", "x"},
	{"run", "--", "--", "x"},
	{"run", "--", "-x", "--read", "y"},
	{"run", "sh", "-c", "echo hi"},
	{"run", "-w", ".", "--", "make"},
	{"run", "-r", "/a", "-r", "/b", "-w", "/c", "--cwd", "/c", "--", "ls", "-l"},
	{"run", "--read=/a", "--write=/b", "--cwd=/b", "--", "x"},
	{"run", "--net", "proxy", "--allow", "example.com", "--allow", "*.a.b:443", "--", "curl"},
	{"run", "--net=host", "--connect-port", "443", "--bind-port=8080", "--connect-port", "1", "--", "x"},
	{"run", "--env", "A=b", "--env=C=d=e", "--pass-env", "HOME", "--", "env"},
	{"run", "--mount", "/a:/b", "--mount=/c:/d:rw", "--tmpfs", "/x:1MiB", "--", "x"},
	{"run", "--memory", "2GiB", "--pids", "64", "--status-fd", "3", "--report", "/tmp/r.json", "--", "x"},
	{"run", "--status-fd", "0", "--", "x"},
	{"run", "--status-fd", "+5", "--pids", "010", "--", "x"},
	{"run", "--backend", "docker", "--image", "alpine", "--", "x"},
	{"run", "--backend", "auto", "--backend", "native", "--", "x"},
	{"run", "--tty", "--", "x"},
	{"run", "--no-tty", "--", "x"},
	{"run", "--tty", "--no-tty", "--", "x"},
	{"run", "--tty=true", "--", "x"},
	{"run", "--best-effort", "--delegate", "--", "x"},
	{"run", "--best-effort=false", "--", "x"},
	{"run", "--wait", "--", "x"},
	{"run", "--wait", "5m", "--", "x"},
	{"run", "--wait=5m", "--", "x"},
	{"run", "--wait=", "--", "x"},
	{"run", "--wait=forever", "--", "x"},
	{"run", "--label", "a=b", "--label", "c=d,e", "--", "x"},
	{"run", "--spec", "-", "--", "x"},
	{"run", "--spec", "/s.json"},
	{"run", "--view", "host", "--exclude", "/x", "--protect", "a", "--unprotect", ".git/hooks", "--", "x"},
	{"run", "--profile", "p", "--home", "h", "--within", "abc", "--", "x"},
	{"run", "--cwd", "", "--", "x"},
	{"run", "--cwd", "-x", "--", "x"},
	{"run", "--cwd"},
	{"run", "--pids", "0", "--", "x"},
	{"run", "--pids", "-1", "--", "x"},
	{"run", "--pids", "x", "--", "x"},
	{"run", "--bind-port", "0", "--", "x"},
	{"run", "--bind-port", "70000", "--", "x"},
	{"run", "--unknown", "--", "x"},
	{"run", "-h"},
	{"run", "--help"},
	{"run", "-rw", "x"},
	{"run", "-r/a", "--", "x"},
	{"run", "-r=/a", "--", "x"},
	{"run", "-x", "--", "x"},
	{"run", "-", "x"},
	{"run", "--", ""},
	{"run", "--read", "--", "x"},
	{"run", "--read", "a,b", "--", "x"},
	{"run", "--cwd", "a", "--cwd", "b", "--", "x"},
}

func TestRunFastMatchesKong(t *testing.T) {
	accepted := 0
	for _, args := range fastTable {
		if checkFast(t, args) {
			accepted++
		}
	}
	if accepted < 30 {
		t.Fatalf("the fast parser took only %d of %d lists: it would rarely be used", accepted, len(fastTable))
	}
}

// TestRunFastRandom builds argument lists from the words of run's flags,
// values good and bad, and commands, and holds the fast parser to kong on
// each.
func TestRunFastRandom(t *testing.T) {
	words := []string{"--", "-", "-r", "-w", "-h", "-x", "-rw", "x", "", "/a", "a,b", "5m", "0", "1", "-1", "65536", "443", "+3", "010",
		"--read", "--write", "--cwd", "--allow", "--net", "--connect-port", "--bind-port", "--backend", "--image", "--tty", "--no-tty",
		"--env", "--pass-env", "--mount", "--tmpfs", "--home", "--memory", "--pids", "--best-effort", "--spec", "--view", "--exclude",
		"--protect", "--unprotect", "--profile", "--within", "--wait", "--label", "--delegate", "--status-fd", "--report", "--help",
		"--wait=1h", "--wait=", "--cwd=", "--cwd=/b", "--pids=3", "--tty=false", "--read=x", "--nope", "--no-delegate", "--READ"}
	r := rand.New(rand.NewSource(1))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	accepted := 0
	for i := 0; i < n; i++ {
		args := []string{"run"}
		for j := r.Intn(7); j > 0; j-- {
			args = append(args, words[r.Intn(len(words))])
		}
		if checkFast(t, args) {
			accepted++
		}
		if t.Failed() {
			t.Fatalf("after %d lists", i)
		}
	}
	fmt.Printf("fast parser took %d of %d random lists\n", accepted, n)
}

// FuzzRunFast: whatever argument list the fast parser accepts, kong
// accepts too and reads into the same RunCmd. The input is split on NUL
// into arguments after "run".
func FuzzRunFast(f *testing.F) {
	for _, args := range fastTable {
		f.Add(strings.Join(args[1:], "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := []string{"run"}
		if s != "" {
			args = append(args, strings.Split(s, "\x00")...)
		}
		checkFast(t, args)
	})
}
