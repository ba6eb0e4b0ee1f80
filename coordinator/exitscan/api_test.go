package exitscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestExitScanJSON: the report's "exit_scan" section keeps its field
// names, order and empty lists (readers of --report depend on them).
func TestExitScanJSON(t *testing.T) {
	b, err := json.Marshal(diff(newSnapshot(), newSnapshot()))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"new_setuid":[],"new_devices":[],"new_fifos":[],"outside_symlinks":[],"setid_cleared":[],` +
		`"filecaps_cleared":[],"unchecked":[],"git_redirects":[],"truncated":false,"cap":1000000}`
	if string(b) != want {
		t.Errorf("exit_scan JSON\n got %s\nwant %s", b, want)
	}
}

// TestWithGitRedirects: what the git check moved aside lands in the scan;
// nothing moved keeps the empty list; a scan that never began stays nil.
func TestWithGitRedirects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scan  *ExitScan
		moved []string
		want  *ExitScan
	}{
		{"nil scan", nil, []string{"/w/.git"}, nil},
		{"nothing moved", &ExitScan{GitRedirects: []string{}}, nil, &ExitScan{GitRedirects: []string{}}},
		{"moved", &ExitScan{GitRedirects: []string{}}, []string{"/w/.git"}, &ExitScan{GitRedirects: []string{"/w/.git"}}},
	} {
		if got := tc.scan.WithGitRedirects(tc.moved); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestFinishWithoutBegin: a launch that failed before the scan began has
// nothing to report and no error.
func TestFinishWithoutBegin(t *testing.T) {
	for _, tc := range []struct {
		name string
		scan *Scan
	}{{"nil", nil}, {"zero", &Scan{}}} {
		var b strings.Builder
		if got, err := tc.scan.Finish(&b); got != nil || err != nil || b.Len() != 0 {
			t.Errorf("%s: got %+v, %v, printed %q; want nil, nil, nothing", tc.name, got, err, b.String())
		}
	}
}

// TestPrintFindings: each class is named with its next step, and only
// set-id files the scan cleared say so.
func TestPrintFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		scan *ExitScan
		want string
	}{
		{"nil", nil, ""},
		{"cleared", &ExitScan{NewSetuid: []string{"/w/a"}, SetidCleared: []string{"/w/a"}},
			"acbox: a set-id file appeared or changed in a write grant during the run: /w/a; acbox removed its set-id bits\n"},
		{"not cleared", &ExitScan{NewSetuid: []string{"/w/a"}},
			"acbox: a set-id file appeared in a write grant: /w/a; remove it or clear the bits (chmod ug-s) before anyone runs it\n"},
		{"file capabilities", &ExitScan{FilecapsCleared: []string{"/w/c"}},
			"acbox: a file with file capabilities appeared or changed in a write grant during the run: /w/c; acbox removed its capabilities\n"},
		{"device", &ExitScan{NewDevices: []string{"/w/d"}},
			"acbox: a device node appeared in a write grant: /w/d; remove it before anyone opens it\n"},
		{"unchecked", &ExitScan{Unchecked: []string{"/w/x: why"}}, "acbox: not checked after the run: /w/x: why\n"},
		{"fifos and links are report-only", &ExitScan{NewFifos: []string{"/w/f"}, OutsideSymlinks: []string{"/w/l -> /etc"}}, ""},
	} {
		var b strings.Builder
		printFindings(&b, tc.scan)
		if b.String() != tc.want {
			t.Errorf("%s: printed %q, want %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestDiff: an entry that kept its identity is not new unless the walk
// after cleared it; one replaced by another of its class is new.
func TestDiff(t *testing.T) {
	before, after := newSnapshot(), newSnapshot()
	before.found["/w/same"] = special{"setuid", "1"}
	after.found["/w/same"] = special{"setuid", "1"}
	before.found["/w/rewritten"] = special{"setuid", "2"}
	after.found["/w/rewritten"] = special{"setuid", "2"}
	after.cleared["/w/rewritten"] = true
	before.found["/w/dev"] = special{"device", "3"}
	after.found["/w/dev"] = special{"device", "4"}
	after.found["/w/link"] = special{"symlink", "/etc"}
	after.unchecked = []string{"/w/deep: why"}
	after.capsCleared["/w/capped"] = true
	before.truncated = true
	got := diff(before, after)
	want := &ExitScan{NewSetuid: []string{"/w/rewritten"}, NewDevices: []string{"/w/dev"}, NewFifos: []string{},
		OutsideSymlinks: []string{"/w/link -> /etc"}, SetidCleared: []string{"/w/rewritten"},
		FilecapsCleared: []string{"/w/capped"}, Unchecked: []string{"/w/deep: why"}, GitRedirects: []string{}, Truncated: true, Cap: Cap}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diff\n got %+v\nwant %+v", got, want)
	}
}

// TestShortPath: a very deep path is cut, with the levels it left out.
func TestShortPath(t *testing.T) {
	deep := strings.Repeat("/d", 400)
	for _, tc := range []struct{ in, want string }{
		{"/w/a", "/w/a"},
		{deep, deep[:480] + "...(160 more levels)"},
	} {
		if got := shortPath(tc.in); got != tc.want {
			t.Errorf("shortPath(%d bytes) = %q, want %q", len(tc.in), got, tc.want)
		}
	}
}
